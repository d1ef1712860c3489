package config

import (
	"strings"
	"testing"
)

// TestOAuthModeNamesWhatIsMissing: auth.mode oauth without its provider,
// client or grants is refused naming each setting.
func TestOAuthModeNamesWhatIsMissing(t *testing.T) {
	c := Default()
	c.Auth.Mode = "oauth"
	err := c.Validate()
	if err == nil {
		t.Fatal("oauth mode without settings validated")
	}
	for _, want := range []string{"auth.oauth.provider", "auth.oauth.client_id", "auth.oauth.client_secret", "auth.oauth.grants"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error does not name %s: %v", want, err)
		}
	}
	c.Auth.OAuth.Provider, c.Auth.OAuth.ClientID, c.Auth.OAuth.ClientSecret = "oidc", "ragd", "env:SECRET"
	c.Auth.OAuth.Grants = []AuthGrant{{Match: "eng", Namespaces: []string{"docs"}}}
	if err := c.Validate(); err == nil || !strings.Contains(err.Error(), "issuer_url") {
		t.Fatalf("oidc without issuer_url: %v", err)
	}
	c.Auth.OAuth.IssuerURL = "https://idp.example"
	if err := c.Validate(); err != nil {
		t.Fatalf("complete oauth settings refused: %v", err)
	}
	c.Auth.OAuth.Grants = []AuthGrant{{Match: "eng"}}
	if err := c.Validate(); err == nil || !strings.Contains(err.Error(), "grants[0] (eng) lists no namespaces") {
		t.Fatalf("a grant without namespaces: %v", err)
	}
}

// TestGitHubAPIURL: the API URL defaults to api.github.com for github.com
// and to <github_url>/api/v3 for an Enterprise server.
func TestGitHubAPIURL(t *testing.T) {
	for _, c := range []struct{ web, api, want string }{
		{DefaultGitHubURL, "", DefaultGitHubAPIURL},
		{"https://github.acme.example/", "", "https://github.acme.example/api/v3"},
		{"https://github.acme.example", "https://api.acme.example/", "https://api.acme.example"},
	} {
		if got := (AuthOAuth{GitHubURL: c.web, GitHubAPIURL: c.api}).APIURL(); got != c.want {
			t.Errorf("APIURL(%q, %q) = %q, want %q", c.web, c.api, got, c.want)
		}
	}
}
