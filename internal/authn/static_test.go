package authn

import (
	"net/http"
	"ragd/internal/testkit/testenv"
	"slices"
	"strings"
	"testing"

	sdkauth "github.com/modelcontextprotocol/go-sdk/auth"
)

const metaURL = `http://127.0.0.1:8000/.well-known/oauth-protected-resource`

func staticConfig() Config {
	return Config{
		Mode:        ModeStaticToken,
		ResourceURL: "http://127.0.0.1:8000/",
		Keys: []Key{
			{Name: "admin", Token: "admin-secret-token-0123456789", Groups: []string{"*"}},
			{Name: "finance-bot", Token: "finance-secret-token-987654", Namespaces: []string{"finance"}},
		},
	}
}

func TestDisabledPassesWithoutToken(t *testing.T) {
	a := mustNew(t, Config{Mode: ModeDisabled})
	h, s := protect(a)
	w := request(h, "POST", "/v1/query", nil)
	if w.Code != http.StatusOK || !s.called || s.principal != nil {
		t.Fatalf("code %d called %v principal %v", w.Code, s.called, s.principal)
	}
	// The empty mode means disabled too.
	if mustNew(t, Config{}).Mode() != ModeDisabled {
		t.Error("empty mode is not disabled")
	}
}

func TestDisabledStillBlocksForeignOrigin(t *testing.T) {
	a := mustNew(t, Config{Mode: ModeDisabled})
	h, s := protect(a)
	w := request(h, "POST", "/mcp", map[string]string{"Origin": "https://evil.example"})
	if w.Code != http.StatusForbidden || s.called {
		t.Fatalf("code %d called %v", w.Code, s.called)
	}
	if d := detail(t, w); d != "origin https://evil.example is not allowed" {
		t.Errorf("detail = %q", d)
	}
}

func TestStaticMissingToken(t *testing.T) {
	h, s := protect(mustNew(t, staticConfig()))
	for _, hdr := range []map[string]string{nil, {"Authorization": "Basic Zm9vOmJhcg=="}, {"Authorization": "Bearer"}} {
		w := request(h, "GET", "/v1/stats", hdr)
		if w.Code != http.StatusUnauthorized || s.called {
			t.Fatalf("%v: code %d called %v", hdr, w.Code, s.called)
		}
		if got, want := w.Header().Get("WWW-Authenticate"), `Bearer resource_metadata="`+metaURL+`"`; got != want {
			t.Errorf("WWW-Authenticate = %q, want %q", got, want)
		}
		if d := detail(t, w); d != "missing bearer token" {
			t.Errorf("detail = %q", d)
		}
	}
}

func TestStaticWrongToken(t *testing.T) {
	logs := &testenv.Buffer{}
	a, err := New(staticConfig(), debugLogger(logs))
	if err != nil {
		t.Fatal(err)
	}
	h, s := protect(a)
	const wrong = "not-the-admin-secret-token-xyz"
	w := request(h, "GET", "/v1/stats", bearer(wrong))
	if w.Code != http.StatusUnauthorized || s.called {
		t.Fatalf("code %d called %v", w.Code, s.called)
	}
	if got, want := w.Header().Get("WWW-Authenticate"), `Bearer resource_metadata="`+metaURL+`", error="invalid_token"`; got != want {
		t.Errorf("WWW-Authenticate = %q, want %q", got, want)
	}
	if d := detail(t, w); d != "invalid token" {
		t.Errorf("detail = %q", d)
	}
	// A prefix of a real key must not match either.
	if w := request(h, "GET", "/v1/stats", bearer("admin-secret")); w.Code != http.StatusUnauthorized {
		t.Errorf("prefix of a key: code %d", w.Code)
	}
	out := logs.String()
	if !strings.Contains(out, "rejected token") {
		t.Errorf("failure not logged: %s", out)
	}
	for _, secret := range []string{wrong, "admin-secret", "finance-secret"} {
		if strings.Contains(out, secret) || strings.Contains(w.Body.String(), secret) {
			t.Errorf("token text %q leaked into logs or body: %s", secret, out)
		}
	}
}

func TestStaticRightToken(t *testing.T) {
	h, s := protect(mustNew(t, staticConfig()))
	w := request(h, "GET", "/v1/stats", bearer("finance-secret-token-987654"))
	if w.Code != http.StatusOK || !s.called {
		t.Fatalf("code %d called %v body %s", w.Code, s.called, w.Body)
	}
	p := s.principal
	if p == nil || p.Name != "finance-bot" || !slices.Equal(p.Namespaces, []string{"finance"}) {
		t.Fatalf("principal = %+v", p)
	}
	if !p.Allows("finance") || p.Allows("hr") {
		t.Errorf("limited key Allows wrong")
	}

	// The scheme is case-insensitive (RFC 7235).
	w = request(h, "GET", "/v1/stats", map[string]string{"Authorization": "bearer admin-secret-token-0123456789"})
	if w.Code != http.StatusOK || s.principal.Name != "admin" || len(s.principal.Namespaces) != 0 || !s.principal.Allows("hr") {
		t.Fatalf("admin: code %d principal %+v", w.Code, s.principal)
	}
}

func TestStaticHandsTokenInfoToMCPSDK(t *testing.T) {
	a := mustNew(t, staticConfig())
	var ti *sdkauth.TokenInfo
	h := a.Middleware(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ti = sdkauth.TokenInfoFromContext(r.Context())
	}))
	if w := request(h, "POST", "/mcp", bearer("finance-secret-token-987654")); w.Code != http.StatusOK {
		t.Fatalf("code %d body %s", w.Code, w.Body)
	}
	if ti == nil || ti.UserID != "key:finance-bot" {
		t.Fatalf("TokenInfo = %+v", ti)
	}
	if p := FromTokenInfo(ti); p == nil || p.Name != "finance-bot" {
		t.Errorf("FromTokenInfo = %+v", p)
	}
}

func TestPublicPathsSkipAuth(t *testing.T) {
	h, s := protect(mustNew(t, staticConfig()))
	for _, p := range []string{"/", "/health", "/docs", "/docs/index.html", "/openapi.json", MetadataPath, MetadataPath + "/mcp"} {
		s.called = false
		if w := request(h, "GET", p, nil); w.Code != http.StatusOK || !s.called {
			t.Errorf("%s: code %d", p, w.Code)
		}
	}
	for _, p := range []string{"/mcp", "/v1/query", "/docsx", "/docs/../mcp", "/healthz"} {
		if w := request(h, "GET", p, nil); w.Code != http.StatusUnauthorized {
			t.Errorf("%s: code %d, want 401", p, w.Code)
		}
	}
	// The list is configurable; an empty one makes nothing public.
	cfg := staticConfig()
	cfg.PublicPaths = []string{}
	h, _ = protect(mustNew(t, cfg))
	if w := request(h, "GET", "/health", nil); w.Code != http.StatusUnauthorized {
		t.Errorf("/health with no public paths: code %d", w.Code)
	}
}

func TestEnvTokens(t *testing.T) {
	t.Setenv("RAGD_TEST_KEY", "from-the-environment-42")
	cfg := Config{Mode: ModeStaticToken, Keys: []Key{{Name: "ci", Token: "env:RAGD_TEST_KEY"}}}
	h, s := protect(mustNew(t, cfg))
	if w := request(h, "GET", "/v1/stats", bearer("from-the-environment-42")); w.Code != http.StatusOK || s.principal.Name != "ci" {
		t.Fatalf("code %d principal %+v", w.Code, s.principal)
	}
	// The literal "env:..." text is not itself a token.
	if w := request(h, "GET", "/v1/stats", bearer("env:RAGD_TEST_KEY")); w.Code != http.StatusUnauthorized {
		t.Errorf("literal env reference accepted: %d", w.Code)
	}
	cfg.Keys[0].Token = "env:RAGD_TEST_KEY_UNSET"
	_, err := New(cfg, nil)
	if err == nil || !strings.Contains(err.Error(), `"ci"`) || !strings.Contains(err.Error(), "RAGD_TEST_KEY_UNSET") {
		t.Errorf("unset variable: %v", err)
	}
}

func TestNewValidates(t *testing.T) {
	for name, cfg := range map[string]Config{
		"unknown mode":     {Mode: "basic"},
		"static no keys":   {Mode: ModeStaticToken},
		"static empty":     {Mode: ModeStaticToken, Keys: []Key{{Name: "a"}}},
		"duplicate names":  {Mode: ModeStaticToken, Keys: []Key{{Name: "a", Token: "x1"}, {Name: "a", Token: "x2"}}},
		"duplicate tokens": {Mode: ModeStaticToken, Keys: []Key{{Name: "a", Token: "dup-secret-xyz"}, {Name: "b", Token: "dup-secret-xyz"}}},
		"keys no mode":     {Keys: []Key{{Name: "a", Token: "x"}}},
		"jwt no jwks":      {Mode: ModeJWT, Issuer: "https://idp", Audience: "ragd"},
		"jwt no issuer":    {Mode: ModeJWT, JWKSURL: "https://idp/jwks", Audience: "ragd"},
		"jwt no audience":  {Mode: ModeJWT, JWKSURL: "https://idp/jwks", Issuer: "https://idp"},
		"jwt bad jwks":     {Mode: ModeJWT, JWKSURL: "idp/jwks", Issuer: "https://idp", Audience: "ragd"},
		"bad resource":     {Mode: ModeDisabled, ResourceURL: "127.0.0.1:8000"},
		"bad origin":       {Mode: ModeDisabled, AllowedOrigins: []string{"evil.example"}},
	} {
		a, err := New(cfg, nil)
		if err == nil {
			t.Errorf("%s: New succeeded (%+v)", name, a)
		} else if strings.Contains(err.Error(), "dup-secret") {
			t.Errorf("%s: error leaks the token: %v", name, err)
		}
	}
	// Unnamed keys get a name, since logs identify keys by name.
	a := mustNew(t, Config{Mode: ModeStaticToken, Keys: []Key{{Token: "tok-1"}}})
	h, s := protect(a)
	if w := request(h, "GET", "/x", bearer("tok-1")); w.Code != http.StatusOK || s.principal.Name != "key-1" {
		t.Errorf("unnamed key: code %d principal %+v", w.Code, s.principal)
	}
}
