package signin

import (
	"net/http"
	"testing"

	"ragd/internal/platform/config"
	"ragd/internal/testkit/stack"
	"ragd/internal/testkit/standin"
	"ragd/internal/testkit/testenv"
)

// OpsKey is the operator's static key of the ragd StartGitHub and
// StartOIDC start: it indexes their documents, and keeps working beside
// the tokens people get.
const OpsKey = "signin-ops-static-key-0123456789abcdef"

// Octocat is the person of the GitHub stand-in StartGitHub signs in: a
// member of acme and of its team eng.
func Octocat() standin.GitHubUser {
	return standin.GitHubUser{ID: 583231, Login: "octocat", Name: "The Octocat", Orgs: []string{"acme"}, Teams: []string{"acme/eng"}}
}

// StartGitHub starts a whole ragd in auth.mode oauth signing people in at
// a GitHub stand-in (Octocat signs in): acme only, acme/eng granted
// namespace docs and group eng. Its docs namespace holds eng-runbook
// (shared with eng) and fin-ledger (shared with fin).
func StartGitHub(t testing.TB) (*stack.Stack, *standin.GitHub) {
	t.Helper()
	gh := standin.NewGitHub(t, Octocat())
	gh.SignInAs("octocat")
	s := start(t, func(o *config.AuthOAuth) {
		o.Provider, o.ClientID, o.ClientSecret, o.GitHubURL, o.GitHubAPIURL = "github", gh.ClientID, gh.ClientSecret, gh.URL, gh.APIURL()
		o.AllowedOrgs = []string{"acme"}
		o.Grants = []config.AuthGrant{{Match: "acme/eng", Namespaces: []string{"docs"}, Groups: []string{"eng"}}}
	})
	return s, gh
}

// StartOIDC starts the same ragd signing people in at the test OIDC
// provider op, through its public client (which takes ragd's callback on
// any loopback port): people with a verified acme.example email only,
// granted (by "@acme.example") namespace docs and group eng.
func StartOIDC(t testing.TB, op testenv.OIDCProvider) *stack.Stack {
	t.Helper()
	return start(t, func(o *config.AuthOAuth) {
		o.Provider, o.IssuerURL, o.ClientID, o.ClientSecret = "oidc", op.Issuer, op.NativeClientID, "unused-by-a-public-client"
		o.AllowedDomains = []string{"acme.example"}
		o.Grants = []config.AuthGrant{{Match: "@acme.example", Namespaces: []string{"docs"}, Groups: []string{"eng"}}}
	})
}

// start starts ragd in auth.mode oauth at a URL it knows beforehand, its
// upstream as set does, and indexes eng's and fin's documents.
func start(t testing.TB, set func(*config.AuthOAuth)) *stack.Stack {
	t.Helper()
	l, base := stack.Listen(t)
	cfg := stack.Config(t)
	cfg.Auth.Mode, cfg.Auth.ResourceURL, cfg.Auth.APIKey = "oauth", base, OpsKey
	set(&cfg.Auth.OAuth)
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	s := stack.StartOn(t, cfg, true, l)
	for _, d := range []struct{ title, group string }{{"eng-runbook", "eng"}, {"fin-ledger", "fin"}} {
		r := s.DoAs(t, OpsKey, http.MethodPost, "/tools/rag_index", map[string]any{"text": "The harbour lighthouse " + d.title + " notes.",
			"title": d.title, "kb_name": "docs", "wait": true, "access": []string{d.group}})
		if r.Status != http.StatusOK {
			t.Fatalf("index %s: %d %s", d.title, r.Status, r.Body)
		}
	}
	return s
}
