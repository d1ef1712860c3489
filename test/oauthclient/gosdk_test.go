// Package oauthclient_test runs real MCP clients through ragd's
// authorization server (auth.mode oauth) against a whole ragd: the
// go-sdk's AuthorizationCodeHandler registers, sends the person to sign
// in (at the GitHub stand-in) and consent, trades the code, and calls
// core_retrieve_text with the token it got.
package oauthclient_test

import (
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/auth"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/modelcontextprotocol/go-sdk/oauthex"

	"ragd/internal/testkit/signin"
)

// opsKey is the operator's static key, which indexes the documents.
const opsKey = signin.OpsKey

// seen logs each request a client made and the status it got.
type seen struct {
	mu    sync.Mutex
	lines []string
	next  http.RoundTripper
}

func (s *seen) RoundTrip(r *http.Request) (*http.Response, error) {
	res, err := s.next.RoundTrip(r)
	line := r.Method + " " + r.URL.Path
	if err != nil {
		line += " -> " + err.Error()
	} else {
		line += fmt.Sprintf(" -> %d", res.StatusCode)
	}
	s.mu.Lock()
	s.lines = append(s.lines, line)
	s.mu.Unlock()
	return res, err
}

// TestGoSDKClientSignsInAndRetrieves: the go-sdk v1.8 client, given only
// ragd's /mcp URL, discovers the authorization server from the 401,
// registers dynamically, gets the person's consent and a token, and
// core_retrieve_text answers with eng's document and never fin's.
func TestGoSDKClientSignsInAndRetrieves(t *testing.T) {
	s, gh := signin.StartGitHub(t)
	log := &seen{next: http.DefaultTransport}
	handler, err := auth.NewAuthorizationCodeHandler(&auth.AuthorizationCodeHandlerConfig{
		DynamicClientRegistrationConfig: &auth.DynamicClientRegistrationConfig{Metadata: &oauthex.ClientRegistrationMetadata{
			ClientName: "go-sdk test agent", RedirectURIs: []string{signin.Redirect}, GrantTypes: []string{"authorization_code", "refresh_token"}}},
		RedirectURL:              signin.Redirect,
		AuthorizationCodeFetcher: signin.Browser(s.URL, log),
		Client:                   &http.Client{Transport: log},
	})
	if err != nil {
		t.Fatal(err)
	}
	client := sdk.NewClient(&sdk.Implementation{Name: "go-sdk test agent", Version: "1"}, nil)
	cs, err := client.Connect(t.Context(), &sdk.StreamableClientTransport{Endpoint: s.URL + "/mcp", OAuthHandler: handler, HTTPClient: &http.Client{Transport: log}}, nil)
	if err != nil {
		t.Fatalf("connect: %v\nrequests:\n%s", err, strings.Join(log.lines, "\n"))
	}
	defer cs.Close()
	res, err := cs.CallTool(t.Context(), &sdk.CallToolParams{Name: "core_retrieve_text", Arguments: map[string]any{"query": "harbour lighthouse lamp controller", "kb_name": "docs", "top_k": 10}})
	if err != nil || res.IsError {
		t.Fatalf("core_retrieve_text: %v %+v", err, res)
	}
	text := fmt.Sprint(res.StructuredContent)
	if !strings.Contains(text, "runbook") || strings.Contains(text, "ledger") {
		t.Fatalf("core_retrieve_text as octocat (acme/eng): %s; want eng's runbook and not fin's ledger", text)
	}
	if gh.Requests("/api/v3/user/teams") == 0 {
		t.Error("ragd never asked the GitHub stand-in for the person's teams")
	}
	t.Logf("the flow as the go-sdk client and its browser saw it:\n%s", strings.Join(log.lines, "\n"))
}
