package testenv

import (
	"html"
	"io"
	"net/http"
	"net/url"
	"os"
	"regexp"
	"testing"
)

// OIDCProvider is the OpenID Connect provider `make test` starts
// (scripts/lib.sh start_oidc_provider: zitadel/oidc's example OP), with
// its test people and ragd's clients there.
type OIDCProvider struct {
	// Issuer is the provider's issuer, e.g. http://localhost:29998/.
	Issuer string
	// ClientID and ClientSecret are a confidential client whose one
	// redirect URI (for ragd's callback) is RedirectURI.
	ClientID, ClientSecret, RedirectURI string
	// NativeClientID is a public client that accepts CallbackPath on any
	// loopback port.
	NativeClientID, CallbackPath string
	// User (alice@acme.example), OtherUser (mallory@evil.example) and
	// UnverifiedUser (eve@acme.example, email not verified) sign in
	// with Password.
	User, OtherUser, UnverifiedUser, Password string
}

// OIDC is the test OIDC provider; the test fails when `make test` did not
// start it (skips with -short).
func OIDC(t testing.TB) OIDCProvider {
	t.Helper()
	issuer := os.Getenv("RAGD_TEST_OIDC_ISSUER")
	if issuer == "" {
		if testing.Short() {
			t.Skip("RAGD_TEST_OIDC_ISSUER not set (-short): skipping a test that signs in at the OIDC provider")
		}
		t.Fatal("RAGD_TEST_OIDC_ISSUER is not set: run the tests with `make test`, which builds and starts the OIDC provider " +
			"(scripts/lib.sh install_oidc_provider, start_oidc_provider and export_oidc_test_env)")
	}
	return OIDCProvider{
		Issuer: issuer, ClientID: os.Getenv("RAGD_TEST_OIDC_CLIENT_ID"), ClientSecret: os.Getenv("RAGD_TEST_OIDC_CLIENT_SECRET"),
		RedirectURI: os.Getenv("RAGD_TEST_OIDC_REDIRECT_URI"), NativeClientID: os.Getenv("RAGD_TEST_OIDC_NATIVE_CLIENT_ID"),
		CallbackPath: os.Getenv("RAGD_TEST_OIDC_CALLBACK_PATH"), User: os.Getenv("RAGD_TEST_OIDC_USER"),
		OtherUser: os.Getenv("RAGD_TEST_OIDC_OTHER_USER"), UnverifiedUser: os.Getenv("RAGD_TEST_OIDC_UNVERIFIED_USER"),
		Password: os.Getenv("RAGD_TEST_OIDC_PASSWORD"),
	}
}

// loginForm finds the provider's login form: its action and the hidden id
// of the sign-in it belongs to.
var loginForm = regexp.MustCompile(`(?s)<form method="POST" action="([^"]+)".*?name="id" value="([^"]*)"`)

// SignIn signs user in at the provider as a person does: from authURL (a
// client's authorization request) to the login form, then posts it with
// the user's password. c keeps the cookies and decides where redirects
// stop (its CheckRedirect); the answer to the post is returned, its body
// closed: for a client that stops at its callback, the redirect there.
func (p OIDCProvider) SignIn(t testing.TB, c *http.Client, authURL, user string) *http.Response {
	t.Helper()
	resp, err := c.Get(authURL)
	if err != nil {
		t.Fatalf("oidc sign-in: GET %s: %v", authURL, err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	m := loginForm.FindSubmatch(body)
	if m == nil {
		t.Fatalf("oidc sign-in: %s (status %d) shows no login form: %.300s", resp.Request.URL, resp.StatusCode, body)
	}
	action, err := resp.Request.URL.Parse(html.UnescapeString(string(m[1])))
	if err != nil {
		t.Fatal(err)
	}
	form := url.Values{"id": {html.UnescapeString(string(m[2]))}, "username": {user}, "password": {p.Password}}
	resp, err = c.PostForm(action.String(), form)
	if err != nil {
		t.Fatalf("oidc sign-in: POST %s: %v", action, err)
	}
	resp.Body.Close()
	return resp
}
