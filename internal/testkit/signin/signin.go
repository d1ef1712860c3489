// Package signin plays a person signing in to a ragd in auth.mode oauth
// for tests: Browser is the browser an OAuth client sends to the
// authorization URL (redirects followed through the sign-in upstream,
// Allow pressed on ragd's consent page), Press presses a button of that
// page, Token runs the go-sdk client's whole flow for an access token,
// and StartGitHub and StartOIDC start a whole ragd signing people in at
// the GitHub stand-in or the test OIDC provider.
package signin

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"golang.org/x/oauth2"

	"ragd/internal/authn/oauth"
)

// Redirect is the loopback redirect URI test clients register; nothing
// listens there: Browser stops at the redirect and hands the code over.
const Redirect = "http://127.0.0.1:53682/callback"

var hiddenField = regexp.MustCompile(`<input type="hidden" name="([^"]+)" value="([^"]*)">`)

// Browser is the person's browser for a client of ragd at base: it
// follows redirects (through rt, nil for the default transport) up to
// ragd's consent page, presses Allow (a POST from ragd's origin with the
// page's CSRF token and cookie), and stops at Redirect, whose code, state
// and iss it returns.
func Browser(base string, rt http.RoundTripper) auth.AuthorizationCodeFetcher {
	return func(ctx context.Context, args *auth.AuthorizationArgs) (*auth.AuthorizationResult, error) {
		jar, _ := cookiejar.New(nil)
		b := &http.Client{Jar: jar, Transport: rt, CheckRedirect: func(r *http.Request, _ []*http.Request) error {
			if strings.HasPrefix(r.URL.String(), Redirect) {
				return http.ErrUseLastResponse
			}
			return nil
		}}
		res, err := b.Get(args.URL)
		if err != nil {
			return nil, err
		}
		page, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if !strings.Contains(string(page), `<button name="decision" value="allow">`) {
			return nil, fmt.Errorf("no consent page: %d %s", res.StatusCode, page)
		}
		if res, err = Press(ctx, b, base, string(page), "allow"); err != nil {
			return nil, err
		}
		res.Body.Close()
		back, err := url.Parse(res.Header.Get("Location"))
		if err != nil || res.StatusCode != http.StatusFound {
			return nil, fmt.Errorf("consent answered %d to %q", res.StatusCode, res.Header.Get("Location"))
		}
		q := back.Query()
		return &auth.AuthorizationResult{Code: q.Get("code"), State: q.Get("state"), Iss: q.Get("iss")}, nil
	}
}

// Press presses the button decision ("allow" or "deny") of ragd's consent
// page (at base, its HTML in page) in browser b: a POST from ragd's origin
// with the page's hidden fields (request, CSRF token) and b's cookies.
func Press(ctx context.Context, b *http.Client, base, page, decision string) (*http.Response, error) {
	form := url.Values{"decision": {decision}}
	for _, m := range hiddenField.FindAllStringSubmatch(page, -1) {
		form.Set(m[1], m[2])
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, base+oauth.ConsentPath, strings.NewReader(form.Encode()))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", base)
	return b.Do(req)
}

// Token runs the go-sdk client's flow against ragd at base, as whoever
// the upstream stand-in signs in, and returns the access token it got.
func Token(t testing.TB, base string) string {
	t.Helper()
	_, tok := Tokens(t, base)
	return tok.AccessToken
}

// Tokens registers a client at ragd at base, runs the go-sdk client's flow
// for it, as whoever the upstream stand-in signs in, and returns the
// client's id and the tokens it got.
func Tokens(t testing.TB, base string) (clientID string, tok *oauth2.Token) {
	t.Helper()
	reg, err := oauthex.RegisterClient(t.Context(), base+oauth.RegisterPath, &oauthex.ClientRegistrationMetadata{
		ClientName: "test agent", RedirectURIs: []string{Redirect}, TokenEndpointAuthMethod: "none"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	h, err := auth.NewAuthorizationCodeHandler(&auth.AuthorizationCodeHandlerConfig{
		PreregisteredClient: &oauthex.ClientCredentials{ClientID: reg.ClientID},
		RedirectURL:         Redirect, AuthorizationCodeFetcher: Browser(base, nil),
	})
	if err != nil {
		t.Fatal(err)
	}
	req, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, base+"/mcp", strings.NewReader(`{}`))
	res, err := http.DefaultClient.Do(req)
	if err != nil || res.StatusCode != http.StatusUnauthorized {
		t.Fatalf("POST /mcp without a token: %v %v", err, res)
	}
	if err := h.Authorize(t.Context(), req, res); err != nil {
		t.Fatal(err)
	}
	ts, err := h.TokenSource(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if tok, err = ts.Token(); err != nil {
		t.Fatal(err)
	}
	return reg.ClientID, tok
}
