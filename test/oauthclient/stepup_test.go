package oauthclient_test

import (
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/auth"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/modelcontextprotocol/go-sdk/oauthex"

	"ragd/internal/testkit/signin"
)

// TestGoSDKStepUp: a go-sdk client that asked only for read may search;
// its first core_ingest gets 403 insufficient_scope naming write, the
// client asks the person again for read and write (the consent page shows
// the wider request), and the retried call is indexed.
func TestGoSDKStepUp(t *testing.T) {
	s, _ := signin.StartGitHub(t)
	log := &seen{next: http.DefaultTransport}
	handler, err := auth.NewAuthorizationCodeHandler(&auth.AuthorizationCodeHandlerConfig{
		DynamicClientRegistrationConfig: &auth.DynamicClientRegistrationConfig{Metadata: &oauthex.ClientRegistrationMetadata{
			ClientName: "step-up agent", RedirectURIs: []string{signin.Redirect}}},
		RedirectURL: signin.Redirect, AuthorizationCodeFetcher: signin.Browser(s.URL, log), Client: &http.Client{Transport: log},
		ScopeFilter: func(discovered []string) []string {
			if slices.Contains(discovered, "write") && !slices.Contains(discovered, "read") {
				return discovered // the step-up's challenge
			}
			return []string{"read"}
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	client := sdk.NewClient(&sdk.Implementation{Name: "step-up agent", Version: "1"}, nil)
	cs, err := client.Connect(t.Context(), &sdk.StreamableClientTransport{Endpoint: s.URL + "/mcp", OAuthHandler: handler, HTTPClient: &http.Client{Transport: log}}, nil)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	defer cs.Close()
	if res, err := cs.CallTool(t.Context(), &sdk.CallToolParams{Name: "core_retrieve_text", Arguments: map[string]any{"query": "lighthouse", "kb_name": "docs"}}); err != nil || res.IsError {
		t.Fatalf("a search with scope read: %v %+v", err, res)
	}
	res, err := cs.CallTool(t.Context(), &sdk.CallToolParams{Name: "core_ingest", Arguments: map[string]any{"content": "The harbour crane manual.", "source_type": "text", "kb_name": "docs"}})
	if err != nil || res.IsError {
		t.Fatalf("core_ingest after the step-up: %v %+v\nrequests:\n%s", err, res, strings.Join(log.lines, "\n"))
	}
	flow := strings.Join(log.lines, "\n")
	if strings.Count(flow, "POST /oauth/token -> 200") != 2 || !strings.Contains(flow, "POST /mcp -> 403") {
		t.Fatalf("want one 403 and two token grants (read, then read write):\n%s", flow)
	}
	t.Logf("the step-up as the go-sdk client saw it:\n%s", flow)
}
