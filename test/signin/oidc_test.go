package signin_test

import (
	"context"
	"io"
	"net/http"
	"net/http/cookiejar"
	"strings"
	"testing"

	"ragd/internal/authn/oauth"
	"ragd/internal/testkit/signin"
	"ragd/internal/testkit/testenv"
)

// oidcBrowser is the person's browser for ragd login: from ragd's
// /oauth/authorize to the provider's login form, which it fills in as
// user, then ragd's consent page, where it presses Allow; the last
// redirect reaches ragd login's loopback address. refused, when set,
// receives the page ragd shows after the provider instead (nothing is
// pressed).
func oidcBrowser(t *testing.T, op testenv.OIDCProvider, base, user string, refused chan<- string) func(string) error {
	return func(authURL string) error {
		go func() {
			jar, _ := cookiejar.New(nil)
			// Up to ragd's callback, whose page is then read.
			upTo := &http.Client{Jar: jar, CheckRedirect: func(r *http.Request, _ []*http.Request) error {
				if strings.HasPrefix(r.URL.String(), base+oauth.CallbackPath) {
					return http.ErrUseLastResponse
				}
				return nil
			}}
			res := op.SignIn(t, upTo, authURL, user)
			b := &http.Client{Jar: jar}
			page := readPage(t, b, res.Header.Get("Location"))
			if refused != nil {
				refused <- page
				return
			}
			if res, err := signin.Press(context.Background(), b, base, page, "allow"); err == nil {
				res.Body.Close()
			}
		}()
		return nil
	}
}

// readPage reads the page at target (the sign-in ended there).
func readPage(t *testing.T, b *http.Client, target string) string {
	res, err := b.Get(target)
	if err != nil {
		t.Errorf("browser: %v", err)
		return ""
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	return string(body)
}

// TestLoginAtOIDCProvider: ragd login against a whole ragd in oauth mode
// whose people sign in at the real OIDC provider: alice (alice@acme.example,
// verified) signs in through the provider's login form and ragd's
// consent, and ragd docs then lists eng's document and never fin's;
// mallory (evil.example) is shown ragd's refusal and ragd login fails.
func TestLoginAtOIDCProvider(t *testing.T) {
	op := testenv.OIDC(t)
	signinFile(t)
	s := signin.StartOIDC(t, op)

	code, out, errs := run(t, oidcBrowser(t, op, s.URL, op.User, nil), "login", "--server", s.URL)
	if code != 0 {
		t.Fatalf("login as %s: exit %d, %s %s", op.User, code, out, errs)
	}
	code, out, errs = run(t, nil, "docs", "--kb", "docs", "--server", s.URL)
	if code != 0 || !strings.Contains(out, "eng-runbook") || strings.Contains(out, "fin-ledger") {
		t.Fatalf("docs as %s: exit %d, %s %s; want eng's document and not fin's", op.User, code, out, errs)
	}

	refused := make(chan string, 1)
	done := make(chan int, 1)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		code, _, _ := runCtx(ctx, oidcBrowser(t, op, s.URL, op.OtherUser, refused), "login", "--server", s.URL)
		done <- code
	}()
	if page := <-refused; !strings.Contains(page, "allowed_domains") {
		t.Errorf("%s was shown %q, want the allowed_domains refusal", op.OtherUser, page)
	}
	cancel() // the person closes the page: ragd login stops waiting
	if code := <-done; code != 130 {
		t.Errorf("ragd login for %s: exit %d, want 130 (no sign-in came back)", op.OtherUser, code)
	}
}
