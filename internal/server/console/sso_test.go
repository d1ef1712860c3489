package console_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"ragd/internal/platform/config"
	"ragd/internal/testkit/stack"
	"ragd/internal/testkit/standin"
)

// ssoKey is the operator's static key, which indexes the documents and
// keeps working in auth.mode oauth.
const ssoKey = "sso-ops-static-key-0123456789abcdef"

// startSSORagd is a whole ragd in auth.mode oauth signing in at the
// GitHub stand-in (acme/eng: namespace docs, group eng), with eng's and
// fin's documents in docs, each shared with its group only.
func startSSORagd(t *testing.T) (*stack.Stack, *standin.GitHub) {
	t.Helper()
	gh := standin.NewGitHub(t, standin.GitHubUser{ID: 583231, Login: "octocat", Name: "The Octocat", Orgs: []string{"acme"}, Teams: []string{"acme/eng"}})
	gh.SignInAs("octocat")
	l, base := stack.Listen(t)
	cfg := stack.Config(t)
	cfg.Auth.Mode, cfg.Auth.ResourceURL, cfg.Auth.APIKey = "oauth", base, ssoKey
	o := &cfg.Auth.OAuth
	o.Provider, o.ClientID, o.ClientSecret, o.GitHubURL, o.GitHubAPIURL = "github", gh.ClientID, gh.ClientSecret, gh.URL, gh.APIURL()
	o.AllowedOrgs = []string{"acme"}
	o.Grants = []config.AuthGrant{{Match: "acme/eng", Namespaces: []string{"docs"}, Groups: []string{"eng"}}}
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	s := stack.StartOn(t, cfg, true, l)
	for _, d := range []struct{ title, group string }{{"eng-runbook", "eng"}, {"fin-ledger", "fin"}} {
		r := s.DoAs(t, ssoKey, http.MethodPost, "/tools/rag_index", map[string]any{"text": "The harbour lighthouse " + d.title + " notes.",
			"title": d.title, "kb_name": "docs", "wait": true, "access": []string{d.group}})
		if r.Status != http.StatusOK {
			t.Fatalf("index %s: %d %s", d.title, r.Status, r.Body)
		}
	}
	return s, gh
}

// TestConsoleSignInWithGitHub: in auth.mode oauth the login page offers
// "Sign in with GitHub/SSO"; it runs ragd's authorization flow (GitHub,
// then ragd's consent page, Allow) and ends in the console's session as
// octocat limited to docs, seeing eng's document and not fin's, with the
// code gone from the address bar. Deny brings the login page back with
// the refusal.
func TestConsoleSignInWithGitHub(t *testing.T) {
	t.Parallel()
	ctx := browser(t, 3*time.Minute)
	s, _ := startSSORagd(t)

	do(t, ctx, "load /ui/", chromedp.Navigate(s.URL+"/ui/"), css("#login"), css("#sso-start"))
	if label := textOf(t, ctx, "#sso-start"); label != "Sign in with GitHub/SSO" {
		t.Fatalf("button: %q", label)
	}
	screenshot(t, ctx, "console-sso-login")

	do(t, ctx, "deny", click("#sso-start"), css(`button[name="decision"][value="deny"]`), click(`button[name="decision"][value="deny"]`),
		css("#login"), until(`document.querySelector('#login-error').textContent.includes('sign-in refused')`))
	if eval[bool](t, ctx, `!document.querySelector('#app').hidden`) {
		t.Fatal("the console opened after Deny")
	}

	do(t, ctx, "allow", click("#sso-start"), css(`button[name="decision"][value="allow"]`))
	screenshot(t, ctx, "console-sso-consent")
	do(t, ctx, "back in the console", click(`button[name="decision"][value="allow"]`), css("#app"),
		until(`document.querySelector('#whoami').textContent.includes('octocat')`),
		until(`document.body.textContent.includes('eng-runbook')`))
	if who := textOf(t, ctx, "#whoami"); who != "octocat (docs)" {
		t.Errorf("header: %q", who)
	}
	if page := textOf(t, ctx, "body"); strings.Contains(page, "fin-ledger") {
		t.Error("octocat of acme/eng sees fin's document")
	}
	if search := eval[string](t, ctx, `location.search`); search != "" {
		t.Errorf("the address bar keeps %q", search)
	}
	screenshot(t, ctx, "console-sso-signed-in")
}
