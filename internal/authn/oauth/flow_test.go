package oauth_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"ragd/internal/authn/oauth"
	"ragd/internal/ingest/guard"
)

// TestMetadataNamesRagdAsAuthorizationServer: the RFC 9728 document names
// ragd as its authorization server, and the RFC 8414 one lists what the
// MCP authorization spec asks.
func TestMetadataNamesRagdAsAuthorizationServer(t *testing.T) {
	h := newHarness(t)
	_, body := h.get("/.well-known/oauth-protected-resource/mcp")
	var prm struct {
		Resource string   `json:"resource"`
		Servers  []string `json:"authorization_servers"`
		Scopes   []string `json:"scopes_supported"`
	}
	if err := json.Unmarshal([]byte(body), &prm); err != nil || prm.Resource != h.base+"/mcp" || !slices.Equal(prm.Servers, []string{h.base}) ||
		!slices.Equal(prm.Scopes, []string{"read", "write", "operator"}) {
		t.Fatalf("protected-resource metadata: %s (%v)", body, err)
	}
	res, body := h.get(oauth.MetadataPath)
	var asm map[string]any
	if err := json.Unmarshal([]byte(body), &asm); err != nil || res.StatusCode != http.StatusOK {
		t.Fatalf("authorization server metadata: %d %s", res.StatusCode, body)
	}
	for k, want := range map[string]any{"issuer": h.base, "registration_endpoint": h.base + oauth.RegisterPath, "revocation_endpoint": h.base + oauth.RevokePath,
		"client_id_metadata_document_supported": true, "authorization_response_iss_parameter_supported": true} {
		if asm[k] != want {
			t.Errorf("%s = %v, want %v", k, asm[k], want)
		}
	}
	if m, _ := json.Marshal(asm["code_challenge_methods_supported"]); string(m) != `["S256"]` {
		t.Errorf("code_challenge_methods_supported = %s, want only S256", m)
	}
	if m, _ := json.Marshal(asm["scopes_supported"]); string(m) != `["read","write","operator"]` {
		t.Errorf("scopes_supported = %s", m)
	}
}

// TestFlowGivesThePersonTheirGrants: registration, /authorize, the
// upstream sign-in with ragd's own callback, the consent page, the code
// with state and iss, the token, and the resource seeing the person with
// the namespaces, groups and scopes of the grant.
func TestFlowGivesThePersonTheirGrants(t *testing.T) {
	h := newHarness(t)
	a := h.newAuthorization("http://127.0.0.1:7777/callback")
	form, page := h.consentPage(a)
	for _, want := range []string{"Test Agent", "127.0.0.1:7777", "docs", "ada", `<button name="decision" value="allow">`, "read:", "write:"} {
		if !strings.Contains(page, want) {
			t.Errorf("the consent page does not show %q", want)
		}
	}
	if saw := h.upstream.saw; len(saw) != 1 || saw[0] != h.base+oauth.CallbackPath {
		t.Errorf("ragd sent the browser upstream with redirect_uri %v, want its own callback", saw)
	}
	back := h.consent(form, "allow")
	q := back.Query()
	if back.Host != "127.0.0.1:7777" || q.Get("state") != a.state || q.Get("iss") != h.base || q.Get("code") == "" {
		t.Fatalf("redirect %s: want the client's redirect_uri with code, state and iss", back)
	}
	tok := h.exchange(a, q.Get("code"))
	if tok.status != http.StatusOK || tok.AccessToken == "" || tok.RefreshToken == "" || tok.Scope != "read write" || tok.ExpiresIn != 600 {
		t.Fatalf("token: %+v", tok)
	}
	res, p := h.call(http.MethodGet, "/documents", tok.AccessToken, "")
	if res.StatusCode != http.StatusOK || p.Name != "ada" || !slices.Equal(p.Namespaces, []string{"docs"}) || !slices.Equal(p.Groups, []string{"eng"}) ||
		!slices.Equal(p.Scopes, []string{"read", "write"}) || p.Key || p.Operator() {
		t.Fatalf("the resource saw %d %+v", res.StatusCode, p)
	}
	if strings.Contains(h.log.String(), tok.AccessToken) || strings.Contains(h.log.String(), tok.RefreshToken) || strings.Contains(h.log.String(), q.Get("code")) {
		t.Error("a token or code reached the log")
	}
}

// TestDenyTellsTheClient: Deny sends access_denied back, with no code.
func TestDenyTellsTheClient(t *testing.T) {
	h := newHarness(t)
	a := h.newAuthorization("http://127.0.0.1:7777/callback")
	form, _ := h.consentPage(a)
	back := h.consent(form, "deny")
	if back.Query().Get("error") != "access_denied" || back.Query().Get("code") != "" || back.Query().Get("state") != a.state {
		t.Fatalf("deny redirected to %s", back)
	}
}

// TestStaticKeysKeepWorking: auth.keys work in oauth mode beside the
// tokens ragd issues, unscoped.
func TestStaticKeysKeepWorking(t *testing.T) {
	h := newHarness(t)
	res, p := h.call(http.MethodGet, "/metrics", staticKey, "")
	if res.StatusCode != http.StatusOK || p.Name != "ops" || !p.Key || !p.Operator() {
		t.Fatalf("static key: %d %+v", res.StatusCode, p)
	}
	res, _ = h.call(http.MethodGet, "/documents", "", "")
	if res.StatusCode != http.StatusUnauthorized || !strings.Contains(res.Header.Get("WWW-Authenticate"), `resource_metadata="`+h.base+`/.well-known/oauth-protected-resource"`) {
		t.Fatalf("no token: %d %q", res.StatusCode, res.Header.Get("WWW-Authenticate"))
	}
}

// TestRefreshRotates: a refresh gives a new pair; the new refresh token
// works once more.
func TestRefreshRotates(t *testing.T) {
	h := newHarness(t)
	a, tok := h.tokens()
	next := h.refresh(a, tok.RefreshToken)
	if next.status != http.StatusOK || next.RefreshToken == tok.RefreshToken || next.AccessToken == "" {
		t.Fatalf("refresh: %+v", next)
	}
	h.wantStatus(http.MethodGet, "/documents", next.AccessToken, http.StatusOK)
	if again := h.refresh(a, next.RefreshToken); again.status != http.StatusOK {
		t.Fatalf("second refresh: %+v", again)
	}
}

// TestRefreshRereadsTheGrants: a person whose grants changed upstream gets
// the new access at the next refresh.
func TestRefreshRereadsTheGrants(t *testing.T) {
	h := newHarness(t)
	a, tok := h.tokens()
	moved := eng
	moved.Namespaces, moved.Groups = []string{"fin"}, []string{"fin"}
	h.upstream.set(moved, nil)
	next := h.refresh(a, tok.RefreshToken)
	_, p := h.call(http.MethodGet, "/documents", next.AccessToken, "")
	if p == nil || !slices.Equal(p.Namespaces, []string{"fin"}) || !slices.Equal(p.Groups, []string{"fin"}) {
		t.Fatalf("after the refresh the principal is %+v, want fin's grants", p)
	}
}

// TestRegistrationBounds: dynamic registration refuses plain http to a
// non-loopback host, too many redirect URIs, and more registrations from
// one address than the hour allows.
func TestRegistrationBounds(t *testing.T) {
	h := newHarness(t, func(c *oauth.Config) { c.RegistrationsPerHour = 3 })
	for _, body := range []string{`{"redirect_uris":["http://evil.example/cb"]}`, `{"redirect_uris":[]}`,
		`{"redirect_uris":["https://a.example/1","https://a.example/2","https://a.example/3","https://a.example/4","https://a.example/5","https://a.example/6","https://a.example/7","https://a.example/8","https://a.example/9","https://a.example/10","https://a.example/11"]}`} {
		if res, got := h.post(oauth.RegisterPath, "application/json", body, nil); res.StatusCode != http.StatusBadRequest {
			t.Errorf("register %s: %d %s, want 400", body, res.StatusCode, got)
		}
	}
	res, body := h.post(oauth.RegisterPath, "application/json", `{"redirect_uris":["https://a.example/cb"]}`, nil)
	if res.StatusCode != http.StatusTooManyRequests {
		t.Fatalf("the 4th registration in the hour: %d %s, want 429", res.StatusCode, body)
	}
}

// TestConsentIsRemembered: a person who allowed a client is not asked
// again for the same scopes; the sign-in goes straight back with a code.
func TestConsentIsRemembered(t *testing.T) {
	h := newHarness(t)
	a := h.newAuthorization("http://127.0.0.1:7777/callback")
	h.code(a)
	a.state = "second"
	res, _ := h.get(a.query())
	res, _ = h.get(res.Header.Get("Location"))
	res, _ = h.get(res.Header.Get("Location"))
	back, _ := url.Parse(res.Header.Get("Location"))
	if res.StatusCode != http.StatusFound || back.Query().Get("code") == "" || back.Query().Get("state") != "second" {
		t.Fatalf("the second sign-in: %d to %q, want the code without a consent page", res.StatusCode, res.Header.Get("Location"))
	}
	a.scope = "read write operator"
	if _, page := h.consentPage(a); !strings.Contains(page, "operator:") {
		t.Fatal("a wider request did not ask again")
	}
}

// TestSigningKeysRotateAndAreShared: with rotation due at every token,
// each token names a new key, the JWKS lists them, the older tokens still
// verify, and another replica on the same Redis verifies them all.
func TestSigningKeysRotateAndAreShared(t *testing.T) {
	h := newHarness(t, func(c *oauth.Config) { c.KeyRotation = time.Nanosecond })
	replica, err := oauth.New(oauth.Config{Issuer: h.base, SignIn: h.upstream, Fetcher: &guard.Fetcher{}, Store: h.store, Keys: h.keys})
	if err != nil {
		t.Fatal(err)
	}
	defer replica.Close()
	var toks []string
	kids := map[string]bool{}
	for range 3 {
		_, tok := h.tokens()
		toks = append(toks, tok.AccessToken)
		parsed, _, err := jwt.NewParser().ParseUnverified(tok.AccessToken, jwt.MapClaims{})
		if err != nil {
			t.Fatal(err)
		}
		kids[parsed.Header["kid"].(string)] = true
	}
	if len(kids) != 3 {
		t.Fatalf("3 tokens with rotation due named %d keys, want 3", len(kids))
	}
	_, body := h.get(oauth.JWKSPath)
	var set struct {
		Keys []struct {
			KID string `json:"kid"`
			Alg string `json:"alg"`
		} `json:"keys"`
	}
	if err := json.Unmarshal([]byte(body), &set); err != nil || len(set.Keys) < 3 || set.Keys[0].Alg != "ES256" {
		t.Fatalf("JWKS %s: want the 3 keys (or more), ES256", body)
	}
	for _, tok := range toks {
		h.wantStatus(http.MethodGet, "/documents", tok, http.StatusOK)
		if p, _, err := replica.Verify(context.Background(), tok); err != nil || p.Name != "ada" {
			t.Fatalf("the other replica: %v %+v", err, p)
		}
	}
}

// TestClientIDInBasicCredentials: a public client may name itself in
// HTTP Basic credentials with an empty password (clients try
// client_secret_basic first); naming two clients is invalid_client.
func TestClientIDInBasicCredentials(t *testing.T) {
	h := newHarness(t)
	a := h.newAuthorization("http://127.0.0.1:7777/callback")
	form := url.Values{"grant_type": {"authorization_code"}, "code": {h.code(a)}, "redirect_uri": {a.redirect}, "code_verifier": {a.verifier}}
	basic := func(id string) map[string]string {
		return map[string]string{"Authorization": "Basic " + base64.StdEncoding.EncodeToString([]byte(url.QueryEscape(id)+":"))}
	}
	form.Set("client_id", "another-client")
	if res, body := h.post(oauth.TokenPath, "application/x-www-form-urlencoded", form.Encode(), basic(a.client)); res.StatusCode != http.StatusUnauthorized || !strings.Contains(body, "invalid_client") {
		t.Fatalf("two client ids: %d %s", res.StatusCode, body)
	}
	form.Del("client_id")
	if res, body := h.post(oauth.TokenPath, "application/x-www-form-urlencoded", form.Encode(), basic(a.client)); res.StatusCode != http.StatusOK {
		t.Fatalf("client id in Basic credentials: %d %s", res.StatusCode, body)
	}
}

// TestRecordsExpire: a registered client expires after ClientTTL unused
// and each use renews it; a code lives at most CodeTTL.
func TestRecordsExpire(t *testing.T) {
	h := newHarness(t, func(c *oauth.Config) { c.ClientTTL = 2 * time.Hour })
	ctx, rdb := context.Background(), h.store.Client()
	a := h.newAuthorization("http://127.0.0.1:7777/callback")
	key := h.keys.OAuthClient(a.client)
	if ttl := rdb.TTL(ctx, key).Val(); ttl <= time.Hour || ttl > 2*time.Hour {
		t.Fatalf("a new client's TTL %s, want its ClientTTL (2h)", ttl)
	}
	rdb.Expire(ctx, key, time.Minute)
	h.code(a)
	if ttl := rdb.TTL(ctx, key).Val(); ttl <= time.Hour {
		t.Fatalf("a client's TTL after a use: %s, want renewed to 2h", ttl)
	}
	codes := rdb.Keys(ctx, h.keys.OAuthCode("*")).Val()
	if len(codes) != 1 {
		t.Fatalf("%d codes, want 1", len(codes))
	}
	if ttl := rdb.TTL(ctx, codes[0]).Val(); ttl <= 0 || ttl > oauth.CodeTTL {
		t.Fatalf("a code's TTL %s, want at most %s", ttl, oauth.CodeTTL)
	}
}
