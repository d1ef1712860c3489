package oauth_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"ragd"
	"ragd/internal/authn/oauth"
	"ragd/internal/ingest/guard"
)

// wantRedirectError: the answer sends the browser back to the client with
// the OAuth error code, the state and iss, and no code.
func wantRedirectError(t *testing.T, h *harness, a authorization, res *http.Response, code string) {
	t.Helper()
	u, err := url.Parse(res.Header.Get("Location"))
	if res.StatusCode != http.StatusFound || err != nil || !strings.HasPrefix(u.String(), a.redirect) {
		t.Fatalf("answer %d to %q, want a redirect to the client", res.StatusCode, res.Header.Get("Location"))
	}
	q := u.Query()
	if q.Get("error") != code || q.Get("code") != "" || q.Get("state") != a.state || q.Get("iss") != h.base {
		t.Fatalf("redirect %s, want error %s with state and iss and no code", u, code)
	}
}

// wantErrorPage: the answer is ragd's page with status, and no redirect.
func wantErrorPage(t *testing.T, res *http.Response, body string, status int, says string) {
	t.Helper()
	if res.StatusCode != status || res.Header.Get("Location") != "" || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/html") ||
		!strings.Contains(body, says) {
		t.Fatalf("answer %d Location %q, body %q: want page %d saying %q and no redirect", res.StatusCode, res.Header.Get("Location"), body, status, says)
	}
}

// TestPKCEIsRequired: an authorization without code_challenge is refused.
func TestPKCEIsRequired(t *testing.T) {
	h := newHarness(t)
	a := h.newAuthorization("http://127.0.0.1:7777/cb")
	a.noChallenge = true
	res, _ := h.get(a.query())
	wantRedirectError(t, h, a, res, "invalid_request")
}

// TestPKCEPlainIsRefused: code_challenge_method plain is refused.
func TestPKCEPlainIsRefused(t *testing.T) {
	h := newHarness(t)
	a := h.newAuthorization("http://127.0.0.1:7777/cb")
	a.method = "plain"
	res, _ := h.get(a.query())
	wantRedirectError(t, h, a, res, "invalid_request")
}

// TestWrongVerifierGetsNoToken: a code with a verifier that does not hash
// to its challenge gives nothing, and does not spend the code.
func TestWrongVerifierGetsNoToken(t *testing.T) {
	h := newHarness(t)
	a := h.newAuthorization("http://127.0.0.1:7777/cb")
	c := h.code(a)
	wrong := a
	wrong.verifier += "x"
	if tok := h.exchange(wrong, c); tok.status != http.StatusBadRequest || tok.Error != "invalid_grant" || tok.AccessToken != "" {
		t.Fatalf("wrong verifier: %+v", tok)
	}
	if tok := h.exchange(a, c); tok.status != http.StatusOK {
		t.Fatalf("the right verifier after a wrong one: %+v", tok)
	}
}

// TestCodeReuseRevokesItsTokens: a code used twice gives nothing the
// second time, and the tokens the first use gave stop working.
func TestCodeReuseRevokesItsTokens(t *testing.T) {
	h := newHarness(t)
	a := h.newAuthorization("http://127.0.0.1:7777/cb")
	c := h.code(a)
	first := h.exchange(a, c)
	h.wantStatus(http.MethodGet, "/documents", first.AccessToken, http.StatusOK)
	if again := h.exchange(a, c); again.Error != "invalid_grant" || again.AccessToken != "" {
		t.Fatalf("the code's second use: %+v", again)
	}
	h.wantStatus(http.MethodGet, "/documents", first.AccessToken, http.StatusUnauthorized)
	if r := h.refresh(a, first.RefreshToken); r.Error != "invalid_grant" {
		t.Fatalf("the first use's refresh token after the reuse: %+v", r)
	}
}

// TestUnregisteredRedirectURIGetsAPage: a redirect_uri the client did not
// register gets ragd's error page and no redirect — another host, another
// path, or a registered https URI with another port; a loopback one on
// another port is RFC 8252's and allowed.
func TestUnregisteredRedirectURIGetsAPage(t *testing.T) {
	h := newHarness(t)
	a := h.newAuthorization("http://127.0.0.1:7777/cb")
	for _, evil := range []string{"https://evil.example/cb", "http://127.0.0.1:7777/other", "http://127.0.0.1:7777/cb?next=https://evil.example", ""} {
		b := a
		b.redirect = evil
		res, body := h.get(b.query())
		wantErrorPage(t, res, body, http.StatusBadRequest, "redirect_uri")
	}
	b := a
	b.redirect = "http://127.0.0.1:40123/cb"
	if res, _ := h.get(b.query()); res.StatusCode != http.StatusFound || !strings.HasPrefix(res.Header.Get("Location"), h.upstream.srv.URL) {
		t.Fatalf("a loopback redirect_uri on another port: %d %q, want the upstream sign-in", res.StatusCode, res.Header.Get("Location"))
	}
	https := h.newAuthorization("https://app.example/cb")
	https.redirect = "https://app.example:8443/cb"
	res, body := h.get(https.query())
	wantErrorPage(t, res, body, http.StatusBadRequest, "redirect_uri")
}

// TestUnknownClientGetsAPage: a client_id nobody registered gets a page.
func TestUnknownClientGetsAPage(t *testing.T) {
	h := newHarness(t)
	a := h.newAuthorization("http://127.0.0.1:7777/cb")
	a.client = "never-registered"
	res, body := h.get(a.query())
	wantErrorPage(t, res, body, http.StatusBadRequest, "unknown client_id")
}

// TestForeignResourceIsRefused: a resource other than this server is
// refused at /authorize (invalid_target) and at /token, and an access
// token for another audience is refused with 401.
func TestForeignResourceIsRefused(t *testing.T) {
	h := newHarness(t)
	a := h.newAuthorization("http://127.0.0.1:7777/cb")
	a.resource = "https://other.example/mcp"
	res, _ := h.get(a.query())
	wantRedirectError(t, h, a, res, "invalid_target")

	b := h.newAuthorization("http://127.0.0.1:7777/cb")
	c := h.code(b)
	b.resource = "https://other.example/mcp"
	if tok := h.exchange(b, c); tok.Error != "invalid_target" || tok.AccessToken != "" {
		t.Fatalf("token for a foreign resource: %+v", tok)
	}
	other, err := oauth.IssueForTest(context.Background(), h.as, eng, []string{"read"}, time.Now(), "https://other.example")
	if err != nil {
		t.Fatal(err)
	}
	h.wantStatus(http.MethodGet, "/documents", other, http.StatusUnauthorized)
}

// TestTokenFromAnotherIssuerIsRefused: a token signed with ragd's own keys
// by a server of another issuer, one signed with a key ragd does not hold,
// and the upstream provider's credential are refused with 401.
func TestTokenFromAnotherIssuerIsRefused(t *testing.T) {
	h := newHarness(t)
	other, err := oauth.New(oauth.Config{Issuer: "https://other.example", SignIn: h.upstream, Fetcher: &guard.Fetcher{}, Store: h.store, Keys: h.keys})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	tok, err := oauth.IssueForTest(context.Background(), other, eng, []string{"read"}, time.Now(), h.base)
	if err != nil {
		t.Fatal(err)
	}
	h.wantStatus(http.MethodGet, "/documents", tok, http.StatusUnauthorized)

	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	forged := jwt.NewWithClaims(jwt.SigningMethodES256, jwt.MapClaims{"iss": h.base, "aud": h.base, "sub": "github:1", "fam": "x",
		"exp": time.Now().Add(time.Minute).Unix(), "iat": time.Now().Unix(), "scope": "read write operator"})
	forged.Header["kid"] = "made-up"
	signed, _ := forged.SignedString(key)
	h.wantStatus(http.MethodGet, "/documents", signed, http.StatusUnauthorized)
	// The provider's own credential is no ragd token either.
	h.wantStatus(http.MethodGet, "/documents", "upstream-credential-"+eng.Subject, http.StatusUnauthorized)
}

// TestExpiredTokenIsRefused: a token past its exp is refused with 401.
func TestExpiredTokenIsRefused(t *testing.T) {
	h := newHarness(t)
	tok, err := oauth.IssueForTest(context.Background(), h.as, eng, []string{"read"}, time.Now().Add(-time.Hour), "")
	if err != nil {
		t.Fatal(err)
	}
	h.wantStatus(http.MethodGet, "/documents", tok, http.StatusUnauthorized)
}

// TestRevokedTokensAreRefused: after /revoke of the access token, it and
// its refresh token are refused; revoking by the refresh token does the same.
func TestRevokedTokensAreRefused(t *testing.T) {
	h := newHarness(t)
	for _, which := range []string{"access", "refresh"} {
		a, tok := h.tokens()
		h.wantStatus(http.MethodGet, "/documents", tok.AccessToken, http.StatusOK)
		revoke := tok.AccessToken
		if which == "refresh" {
			revoke = tok.RefreshToken
		}
		if res, body := h.post(oauth.RevokePath, "application/x-www-form-urlencoded", url.Values{"token": {revoke}}.Encode(), nil); res.StatusCode != http.StatusOK {
			t.Fatalf("revoke: %d %s", res.StatusCode, body)
		}
		h.wantStatus(http.MethodGet, "/documents", tok.AccessToken, http.StatusUnauthorized)
		if r := h.refresh(a, tok.RefreshToken); r.Error != "invalid_grant" {
			t.Fatalf("refresh after revoking the %s token: %+v", which, r)
		}
	}
}

// TestRefreshReuseRevokesTheFamily: a rotated refresh token used again
// revokes every token of the grant, the newest included.
func TestRefreshReuseRevokesTheFamily(t *testing.T) {
	h := newHarness(t)
	a, tok := h.tokens()
	next := h.refresh(a, tok.RefreshToken)
	h.wantStatus(http.MethodGet, "/documents", next.AccessToken, http.StatusOK)
	if stolen := h.refresh(a, tok.RefreshToken); stolen.Error != "invalid_grant" || stolen.AccessToken != "" {
		t.Fatalf("the rotated refresh token again: %+v", stolen)
	}
	h.wantStatus(http.MethodGet, "/documents", next.AccessToken, http.StatusUnauthorized)
	if r := h.refresh(a, next.RefreshToken); r.Error != "invalid_grant" {
		t.Fatalf("the newest refresh token after the reuse: %+v", r)
	}
}

// TestRemovedFromTheTeamLosesAccessAtRefresh: a person the grants refuse
// now gets no new tokens, and the family is revoked.
func TestRemovedFromTheTeamLosesAccessAtRefresh(t *testing.T) {
	h := newHarness(t)
	a, tok := h.tokens()
	h.upstream.set(eng, ragd.Forbidden("github user %q matches no grant", "ada"))
	if r := h.refresh(a, tok.RefreshToken); r.Error != "invalid_grant" || !strings.Contains(r.Description, "matches no grant") {
		t.Fatalf("refresh of a person removed from the team: %+v", r)
	}
	h.wantStatus(http.MethodGet, "/documents", tok.AccessToken, http.StatusUnauthorized)
}

// TestPersonOutsideTheGrantsGetsAPage: a person the grants refuse at
// sign-in gets a page saying why, no consent and no redirect.
func TestPersonOutsideTheGrantsGetsAPage(t *testing.T) {
	h := newHarness(t)
	h.upstream.set(eng, ragd.Forbidden("github user %q is not a member of an organization allowed to sign in here", "ada"))
	a := h.newAuthorization("http://127.0.0.1:7777/cb")
	res, body := h.get(a.query())
	res, body = h.get(res.Header.Get("Location"))
	res, body = h.get(res.Header.Get("Location"))
	wantErrorPage(t, res, body, http.StatusForbidden, "not a member of an organization allowed")
}

// TestConsentWithoutCSRFTokenIsRefused: the form without its token, with
// another token, or without the cookie, is refused; the request stays
// answerable by the real form.
func TestConsentWithoutCSRFTokenIsRefused(t *testing.T) {
	h := newHarness(t)
	a := h.newAuthorization("http://127.0.0.1:7777/cb")
	form, _ := h.consentPage(a)
	for _, csrf := range []string{"", "forged"} {
		f := url.Values{"request": {form.Get("request")}, "decision": {"allow"}}
		if csrf != "" {
			f.Set("csrf", csrf)
		}
		res, body := h.post(oauth.ConsentPath, "application/x-www-form-urlencoded", f.Encode(), map[string]string{"Origin": h.base})
		wantErrorPage(t, res, body, http.StatusForbidden, "CSRF")
	}
	cookieless := &http.Client{CheckRedirect: h.browser.CheckRedirect}
	req, _ := http.NewRequest(http.MethodPost, h.base+oauth.ConsentPath, strings.NewReader(url.Values{"request": {form.Get("request")}, "csrf": {form.Get("csrf")}, "decision": {"allow"}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", h.base)
	res, err := cookieless.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusForbidden || res.Header.Get("Location") != "" {
		t.Fatalf("the form without the CSRF cookie: %d %q", res.StatusCode, res.Header.Get("Location"))
	}
	if back := h.consent(form, "allow"); back.Query().Get("code") == "" {
		t.Fatalf("the real form after the refusals: %s", back)
	}
}

// TestConsentFromAnotherOriginIsRefused: the consent form posted from
// another origin, or with none, is refused by the consent handler itself
// (and, in front of it, by authn's Origin check).
func TestConsentFromAnotherOriginIsRefused(t *testing.T) {
	h := newHarness(t)
	a := h.newAuthorization("http://127.0.0.1:7777/cb")
	form, _ := h.consentPage(a)
	form.Set("decision", "allow")
	for _, origin := range []string{"https://evil.example", ""} {
		res, body := h.post(oauth.ConsentPath, "application/x-www-form-urlencoded", form.Encode(), map[string]string{"Origin": origin})
		if res.StatusCode != http.StatusForbidden || res.Header.Get("Location") != "" {
			t.Fatalf("consent from origin %q: %d %s", origin, res.StatusCode, body)
		}
	}
	req := httptest.NewRequest(http.MethodPost, h.base+oauth.ConsentPath, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", "https://evil.example")
	w := httptest.NewRecorder()
	h.as.Handler().ServeHTTP(w, req)
	if w.Code != http.StatusForbidden || w.Header().Get("Location") != "" || !strings.Contains(w.Body.String(), "ragd&#39;s own page") {
		t.Fatalf("the consent handler itself, from another origin: %d %s", w.Code, w.Body)
	}
}

// TestCallbackIsNoOpenRedirect: the upstream callback with a state ragd
// did not make, or none, gets a page and redirects nowhere.
func TestCallbackIsNoOpenRedirect(t *testing.T) {
	h := newHarness(t)
	for _, q := range []string{"?code=x&state=made-up&redirect_uri=https://evil.example", "?code=x", "?error=access_denied&state=made-up"} {
		res, body := h.get(oauth.CallbackPath + q)
		wantErrorPage(t, res, body, http.StatusBadRequest, "unknown or has expired")
	}
}

// TestInsufficientScopeNamesTheScope: a read token may read and call a
// read-only MCP tool, but a write answers 403 insufficient_scope naming
// write, and an operator path names operator.
func TestInsufficientScopeNamesTheScope(t *testing.T) {
	h := newHarness(t)
	a := h.newAuthorization("http://127.0.0.1:7777/cb")
	a.scope = "read"
	tok := h.exchange(a, h.code(a))
	h.wantStatus(http.MethodGet, "/documents", tok.AccessToken, http.StatusOK)
	if res, _ := h.call(http.MethodPost, "/mcp", tok.AccessToken, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"core_retrieve_text","arguments":{}}}`); res.StatusCode != http.StatusOK {
		t.Fatalf("a read-only tool with a read token: %d", res.StatusCode)
	}
	if res, _ := h.call(http.MethodDelete, "/mcp", tok.AccessToken, ""); res.StatusCode != http.StatusOK {
		t.Fatalf("ending an MCP session with a read token: %d", res.StatusCode)
	}
	for _, c := range []struct{ method, path, body, scope string }{
		{http.MethodPost, "/documents", "", "write"},
		{http.MethodPost, "/mcp", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"core_delete_document","arguments":{}}}`, "write"},
		{http.MethodGet, "/metrics", "", "operator"},
	} {
		res, _ := h.call(c.method, c.path, tok.AccessToken, c.body)
		want := `error="insufficient_scope", scope="` + c.scope + `"`
		if res.StatusCode != http.StatusForbidden || !strings.Contains(res.Header.Get("WWW-Authenticate"), want) {
			t.Errorf("%s %s with a read token: %d %q, want 403 with %s", c.method, c.path, res.StatusCode, res.Header.Get("WWW-Authenticate"), want)
		}
	}
}

// TestRevocationReachesEveryReplica: a replica that verified a token (and
// so trusts its family for a while) refuses it once another replica
// revoked it: the revocation is published to every replica.
func TestRevocationReachesEveryReplica(t *testing.T) {
	h := newHarness(t)
	replica, err := oauth.New(oauth.Config{Issuer: h.base, SignIn: h.upstream, Fetcher: &guard.Fetcher{}, Store: h.store, Keys: h.keys})
	if err != nil {
		t.Fatal(err)
	}
	defer replica.Close()
	_, tok := h.tokens()
	deadline := time.Now().Add(10 * time.Second)
	for {
		// Verified twice: the second check is answered from the replica's memory
		// once it listens for revocations.
		for range 2 {
			if _, _, err := replica.Verify(context.Background(), tok.AccessToken); err != nil {
				t.Fatalf("the replica before the revocation: %v", err)
			}
		}
		if replica.Trusts(tok.AccessToken) || time.Now().After(deadline) {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if !replica.Trusts(tok.AccessToken) {
		t.Fatal("the replica never came to trust the token's family from memory")
	}
	if res, body := h.post(oauth.RevokePath, "application/x-www-form-urlencoded", url.Values{"token": {tok.AccessToken}}.Encode(), nil); res.StatusCode != http.StatusOK {
		t.Fatalf("revoke: %d %s", res.StatusCode, body)
	}
	for replica.Trusts(tok.AccessToken) && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if _, _, err := replica.Verify(context.Background(), tok.AccessToken); err == nil {
		t.Fatal("the other replica still accepts the revoked token")
	}
}
