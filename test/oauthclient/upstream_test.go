package oauthclient_test

import (
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/oauthex"

	"ragd/internal/authn/oauth"
	"ragd/internal/testkit/signin"
	"ragd/internal/testkit/standin"
)

// TestOutsiderOfTheOrgGetsAPage: a person GitHub says is in no allowed
// organization is shown ragd's page saying so, and no consent.
func TestOutsiderOfTheOrgGetsAPage(t *testing.T) {
	s, gh := signin.StartGitHub(t)
	gh.Update("octocat", func(u *standin.GitHubUser) { u.Orgs, u.Teams = []string{"elsewhere"}, []string{"elsewhere/eng"} })
	reg, err := oauthex.RegisterClient(t.Context(), s.URL+oauth.RegisterPath, &oauthex.ClientRegistrationMetadata{RedirectURIs: []string{signin.Redirect}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	q := url.Values{"response_type": {"code"}, "client_id": {reg.ClientID}, "redirect_uri": {signin.Redirect}, "state": {"s"}, "resource": {s.URL + "/mcp"},
		"code_challenge": {"E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"}, "code_challenge_method": {"S256"}}
	_, err = signin.Browser(s.URL, nil)(t.Context(), &auth.AuthorizationArgs{URL: s.URL + oauth.AuthorizePath + "?" + q.Encode()})
	if err == nil || !strings.Contains(err.Error(), "403") || !strings.Contains(err.Error(), "not a member of an organization allowed to sign in") {
		t.Fatalf("an outsider's sign-in: %v, want ragd's 403 page naming allowed_orgs", err)
	}
}

// TestRemovedFromTheTeamEndToEnd: someone GitHub no longer lists in
// acme/eng gets no new tokens at the next refresh, and the access token
// they held stops working: ragd asks GitHub again at each refresh.
func TestRemovedFromTheTeamEndToEnd(t *testing.T) {
	s, gh := signin.StartGitHub(t)
	client, tok := signin.Tokens(t, s.URL)
	if r := s.DoAs(t, tok.AccessToken, http.MethodGet, "/documents?kb_name=docs", nil); r.Status != http.StatusOK {
		t.Fatalf("documents while in the team: %d %s", r.Status, r.Body)
	}
	gh.Update("octocat", func(u *standin.GitHubUser) { u.Teams = nil })
	res, err := http.PostForm(s.URL+oauth.TokenPath, url.Values{"grant_type": {"refresh_token"}, "refresh_token": {tok.RefreshToken}, "client_id": {client}})
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusBadRequest || !strings.Contains(string(body), "invalid_grant") || !strings.Contains(string(body), "auth.oauth.grants") {
		t.Fatalf("the refresh after leaving acme/eng: %d %s, want invalid_grant saying no grant matches", res.StatusCode, body)
	}
	if r := s.DoAs(t, tok.AccessToken, http.MethodGet, "/documents?kb_name=docs", nil); r.Status != http.StatusUnauthorized {
		t.Fatalf("the access token after the refused refresh: %d, want 401", r.Status)
	}
}
