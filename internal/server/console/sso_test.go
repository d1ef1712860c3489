package console_test

import (
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"ragd/internal/testkit/signin"
	"ragd/internal/testkit/testenv"
)

// TestConsoleSignInWithGitHub: in auth.mode oauth the login page offers
// "Sign in with GitHub/SSO"; it runs ragd's authorization flow (GitHub,
// then ragd's consent page, Allow) and ends in the console's session as
// octocat limited to docs, seeing eng's document and not fin's, with the
// code gone from the address bar. Deny brings the login page back with
// the refusal.
func TestConsoleSignInWithGitHub(t *testing.T) {
	t.Parallel()
	ctx := browser(t, 3*time.Minute)
	s, _ := signin.StartGitHub(t)

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

// TestConsoleSignInAtOIDCProvider: the same button with an OpenID Connect
// provider (the real one the test scripts start): Chromium fills in the
// provider's own login form as alice, allows on ragd's consent page, and
// lands in the console as alice limited to docs, seeing eng's document and
// not fin's.
func TestConsoleSignInAtOIDCProvider(t *testing.T) {
	t.Parallel()
	op := testenv.OIDC(t)
	ctx := browser(t, 3*time.Minute)
	s := signin.StartOIDC(t, op)

	do(t, ctx, "to the provider's login form", chromedp.Navigate(s.URL+"/ui/"), css("#sso-start"), click("#sso-start"), css("#username"))
	do(t, ctx, "sign in as "+op.User, chromedp.SendKeys(chromedp.CSS("#username"), op.User), chromedp.SendKeys(chromedp.CSS("#password"), op.Password),
		click(`button[type="submit"]`), css(`button[name="decision"][value="allow"]`))
	do(t, ctx, "allow", click(`button[name="decision"][value="allow"]`), css("#app"),
		until(`document.body.textContent.includes('eng-runbook')`))
	if who := textOf(t, ctx, "#whoami"); who != op.User+" (docs)" {
		t.Errorf("header: %q", who)
	}
	if page := textOf(t, ctx, "body"); strings.Contains(page, "fin-ledger") {
		t.Errorf("%s sees fin's document", op.User)
	}
	screenshot(t, ctx, "console-oidc-signed-in")
}
