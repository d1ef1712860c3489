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

// TestOAuthSettingsOfTheOtherProvider: a setting only the other provider
// reads is refused, naming the one to use, rather than refusing everyone
// at sign-in.
func TestOAuthSettingsOfTheOtherProvider(t *testing.T) {
	base := Default()
	base.Auth.Mode = "oauth"
	base.Auth.OAuth.ClientID, base.Auth.OAuth.ClientSecret = "ragd", "s"
	base.Auth.OAuth.IssuerURL = "https://idp.example"
	base.Auth.OAuth.Grants = []AuthGrant{{Match: "acme", Namespaces: []string{"docs"}}}
	for name, tc := range map[string]struct {
		edit func(*AuthOAuth)
		want string
	}{
		"github with allowed_domains": {func(o *AuthOAuth) { o.Provider, o.AllowedDomains = "github", []string{"acme.example"} }, "allowed_domains is for provider oidc"},
		"oidc with allowed_orgs":      {func(o *AuthOAuth) { o.Provider, o.AllowedOrgs = "oidc", []string{"acme"} }, "allowed_orgs is for provider github"},
		"github with an @domain grant": {func(o *AuthOAuth) {
			o.Provider, o.Grants = "github", []AuthGrant{{Match: "@acme.example", Namespaces: []string{"docs"}}}
		}, "an @domain grant needs provider oidc"},
	} {
		c := base
		tc.edit(&c.Auth.OAuth)
		if err := c.Validate(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error saying %q", name, err, tc.want)
		}
	}
	for _, p := range []string{"github", "oidc"} {
		c := base
		c.Auth.OAuth.Provider = p
		if err := c.Validate(); err != nil {
			t.Errorf("provider %s with its own settings refused: %v", p, err)
		}
	}
	c := base
	c.Auth.OAuth.Provider, c.Auth.OAuth.Grants = "oidc", []AuthGrant{{Match: "@acme.example", Namespaces: []string{"docs"}}}
	if err := c.Validate(); err != nil {
		t.Errorf("an @domain grant with oidc refused: %v", err)
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
