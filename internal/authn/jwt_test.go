package authn

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"ragd/internal/testkit/testenv"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/golang-jwt/jwt/v5"
)

const (
	testIssuer   = "https://idp.example.com"
	testAudience = "http://127.0.0.1:8000"
)

// idp is a fake authorization server publishing a JWKS.
type idp struct {
	srv     *httptest.Server
	fetches atomic.Int32
	mu      sync.Mutex
	keys    []jose.JSONWebKey
	down    bool
}

func newIDP(t *testing.T) *idp {
	t.Helper()
	p := &idp{}
	p.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p.fetches.Add(1)
		p.mu.Lock()
		defer p.mu.Unlock()
		if p.down {
			http.Error(w, "down", http.StatusBadGateway)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(jose.JSONWebKeySet{Keys: p.keys})
	}))
	t.Cleanup(p.srv.Close)
	return p
}

// publish replaces the published keys (rotation).
func (p *idp) publish(keys ...jose.JSONWebKey) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.keys = keys
}

type signer struct {
	kid    string
	method jwt.SigningMethod
	key    crypto.Signer
}

func rsaSigner(t *testing.T, kid string) signer {
	k, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	return signer{kid, jwt.SigningMethodRS256, k}
}

func ecSigner(t *testing.T, kid string) signer {
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return signer{kid, jwt.SigningMethodES256, k}
}

func (s signer) jwk() jose.JSONWebKey {
	return jose.JSONWebKey{Key: s.key.Public(), KeyID: s.kid, Algorithm: s.method.Alg(), Use: "sig"}
}

func (s signer) sign(t *testing.T, claims jwt.MapClaims) string {
	t.Helper()
	tok := jwt.NewWithClaims(s.method, claims)
	if s.kid != "" {
		tok.Header["kid"] = s.kid
	}
	out, err := tok.SignedString(s.key)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func goodClaims() jwt.MapClaims {
	now := time.Now()
	return jwt.MapClaims{
		"iss":      testIssuer,
		"aud":      []string{testAudience},
		"sub":      "alice",
		"iat":      now.Unix(),
		"exp":      now.Add(time.Hour).Unix(),
		"scope":    "ragd.read ragd.write",
		"kb_names": []string{"finance", "hr"},
	}
}

func jwtConfig(p *idp) Config {
	return Config{
		Mode:        ModeJWT,
		JWKSURL:     p.srv.URL,
		Issuer:      testIssuer,
		Audience:    testAudience,
		Scopes:      []string{"ragd.read"},
		ResourceURL: testAudience,
	}
}

func TestJWTValid(t *testing.T) {
	p := newIDP(t)
	k1 := rsaSigner(t, "k1")
	p.publish(k1.jwk())
	a := mustNew(t, jwtConfig(p))
	if n := p.fetches.Load(); n != 0 {
		t.Errorf("JWKS fetched %d times at New, want lazily", n)
	}
	h, s := protect(a)

	w := request(h, "POST", "/mcp", bearer(k1.sign(t, goodClaims())))
	if w.Code != http.StatusOK {
		t.Fatalf("code %d body %s", w.Code, w.Body)
	}
	pr := s.principal
	if pr.Name != "alice" || !slices.Equal(pr.Namespaces, []string{"finance", "hr"}) || !slices.Equal(pr.Scopes, []string{"ragd.read", "ragd.write"}) {
		t.Errorf("principal = %+v", pr)
	}
	if pr.Allows("default") || !pr.Allows("hr") {
		t.Error("namespaces from the claim not enforced")
	}

	// No namespace claim: all namespaces.
	c := goodClaims()
	delete(c, "kb_names")
	if w := request(h, "POST", "/mcp", bearer(k1.sign(t, c))); w.Code != http.StatusOK || len(s.principal.Namespaces) != 0 {
		t.Errorf("no claim: code %d principal %+v", w.Code, s.principal)
	}
	if n := p.fetches.Load(); n != 1 {
		t.Errorf("JWKS fetched %d times, want 1 (cached)", n)
	}
}

func TestJWTNamespaceClaimForms(t *testing.T) {
	p := newIDP(t)
	k1 := ecSigner(t, "k1")
	p.publish(k1.jwk())
	cfg := jwtConfig(p)
	cfg.NamespaceClaim = "ragd_ns"
	h, s := protect(mustNew(t, cfg))

	c := goodClaims()
	c["ragd_ns"] = "legal, tax"
	if w := request(h, "GET", "/v1/stats", bearer(k1.sign(t, c))); w.Code != http.StatusOK || !slices.Equal(s.principal.Namespaces, []string{"legal", "tax"}) {
		t.Fatalf("string claim: code %d principal %+v", w.Code, s.principal)
	}
	// An empty list must not widen to "all namespaces".
	c["ragd_ns"] = []string{}
	if w := request(h, "GET", "/v1/stats", bearer(k1.sign(t, c))); w.Code != http.StatusUnauthorized {
		t.Errorf("empty claim: code %d", w.Code)
	}
	c["ragd_ns"] = nil
	if w := request(h, "GET", "/v1/stats", bearer(k1.sign(t, c))); w.Code != http.StatusUnauthorized {
		t.Errorf("null claim: code %d", w.Code)
	}
	c["ragd_ns"] = 42
	if w := request(h, "GET", "/v1/stats", bearer(k1.sign(t, c))); w.Code != http.StatusUnauthorized {
		t.Errorf("numeric claim: code %d", w.Code)
	}
}

func TestJWTRefused(t *testing.T) {
	p := newIDP(t)
	k1 := rsaSigner(t, "k1")
	p.publish(k1.jwk())
	logs := &testenv.Buffer{}
	a, err := New(jwtConfig(p), debugLogger(logs))
	if err != nil {
		t.Fatal(err)
	}
	h, s := protect(a)
	impostor := rsaSigner(t, "k1") // same kid, different key

	with := func(k, v any) jwt.MapClaims {
		c := goodClaims()
		if v == nil {
			delete(c, k.(string))
		} else {
			c[k.(string)] = v
		}
		return c
	}
	hmac := jwt.NewWithClaims(jwt.SigningMethodHS256, goodClaims())
	hmac.Header["kid"] = "k1"
	hmacTok, _ := hmac.SignedString([]byte("guess"))
	none, _ := jwt.NewWithClaims(jwt.SigningMethodNone, goodClaims()).SignedString(jwt.UnsafeAllowNoneSignatureType)

	for name, tc := range map[string]struct {
		token  string
		status int
		want   string // in the detail
	}{
		"wrong issuer":   {k1.sign(t, with("iss", "https://other-idp")), 401, "issuer"},
		"wrong audience": {k1.sign(t, with("aud", "https://other-service")), 401, "audience"},
		"expired":        {k1.sign(t, with("exp", time.Now().Add(-time.Hour).Unix())), 401, "expired"},
		"no expiry":      {k1.sign(t, with("exp", nil)), 401, "exp"},
		"bad signature":  {impostor.sign(t, goodClaims()), 401, "signature"},
		"unknown kid":    {rsaSigner(t, "k7").sign(t, goodClaims()), 401, "k7"},
		"hmac":           {hmacTok, 401, "signing method"},
		"alg none":       {none, 401, "signing method"},
		"garbage":        {"not.a.jwt", 401, "invalid token"},
		"missing scope":  {k1.sign(t, with("scope", "ragd.write")), 403, "ragd.read"},
	} {
		s.called = false
		w := request(h, "POST", "/mcp", bearer(tc.token))
		if w.Code != tc.status || s.called {
			t.Errorf("%s: code %d called %v body %s", name, w.Code, s.called, w.Body)
			continue
		}
		errCode := "invalid_token"
		if tc.status == 403 {
			errCode = "insufficient_scope"
		}
		wantHdr := `Bearer resource_metadata="` + testAudience + MetadataPath + `", error="` + errCode + `", scope="ragd.read"`
		if got := w.Header().Get("WWW-Authenticate"); got != wantHdr {
			t.Errorf("%s: WWW-Authenticate = %q, want %q", name, got, wantHdr)
		}
		if d := detail(t, w); !strings.Contains(d, tc.want) {
			t.Errorf("%s: detail %q lacks %q", name, d, tc.want)
		}
		if strings.Contains(logs.String(), tc.token) {
			t.Errorf("%s: token logged", name)
		}
	}
}

func TestJWTKeyRotation(t *testing.T) {
	p := newIDP(t)
	k1, k2 := rsaSigner(t, "k1"), ecSigner(t, "k2")
	p.publish(k1.jwk())
	a := mustNew(t, jwtConfig(p))
	a.verifier.(*jwtVerifier).keys.minInterval = 0
	h, _ := protect(a)

	if w := request(h, "GET", "/v1/stats", bearer(k1.sign(t, goodClaims()))); w.Code != http.StatusOK {
		t.Fatalf("k1: %d %s", w.Code, w.Body)
	}
	p.publish(k2.jwk()) // the IdP rotates to k2
	if w := request(h, "GET", "/v1/stats", bearer(k2.sign(t, goodClaims()))); w.Code != http.StatusOK {
		t.Fatalf("k2 after rotation: %d %s", w.Code, w.Body)
	}
	if n := p.fetches.Load(); n != 2 {
		t.Errorf("fetches = %d, want 2 (initial + refetch for unknown kid)", n)
	}
	// k1 is gone from the set now.
	if w := request(h, "GET", "/v1/stats", bearer(k1.sign(t, goodClaims()))); w.Code != http.StatusUnauthorized {
		t.Errorf("retired k1: %d", w.Code)
	}
}

func TestJWTUnknownKidRateLimited(t *testing.T) {
	p := newIDP(t)
	k1 := rsaSigner(t, "k1")
	p.publish(k1.jwk())
	h, _ := protect(mustNew(t, jwtConfig(p))) // default minInterval
	if w := request(h, "GET", "/v1/stats", bearer(k1.sign(t, goodClaims()))); w.Code != http.StatusOK {
		t.Fatalf("k1: %d", w.Code)
	}
	forger := ecSigner(t, "")
	var wg sync.WaitGroup
	for i := range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := forger
			s.kid = "made-up-" + string(rune('a'+i))
			tok := s.sign(t, goodClaims())
			if w := request(h, "GET", "/v1/stats", bearer(tok)); w.Code != http.StatusUnauthorized {
				t.Errorf("made-up kid: %d", w.Code)
			}
		}()
	}
	wg.Wait()
	if n := p.fetches.Load(); n != 1 {
		t.Errorf("fetches = %d, want 1: made-up kids must not trigger refetches within the interval", n)
	}
}

func TestJWTKeysUnavailable(t *testing.T) {
	p := newIDP(t)
	k1 := rsaSigner(t, "k1")
	p.publish(k1.jwk())
	p.down = true
	h, _ := protect(mustNew(t, jwtConfig(p)))
	w := request(h, "GET", "/v1/stats", bearer(k1.sign(t, goodClaims())))
	if w.Code != http.StatusServiceUnavailable || w.Header().Get("Retry-After") == "" {
		t.Fatalf("code %d headers %v", w.Code, w.Header())
	}
	if d := detail(t, w); !strings.Contains(d, "unavailable") {
		t.Errorf("detail = %q", d)
	}
}

func TestJWTStaleKeysSurviveOutage(t *testing.T) {
	p := newIDP(t)
	k1 := rsaSigner(t, "k1")
	p.publish(k1.jwk())
	a := mustNew(t, jwtConfig(p))
	cache := a.verifier.(*jwtVerifier).keys
	h, _ := protect(a)
	if w := request(h, "GET", "/v1/stats", bearer(k1.sign(t, goodClaims()))); w.Code != http.StatusOK {
		t.Fatalf("k1: %d", w.Code)
	}
	p.mu.Lock()
	p.down = true
	p.mu.Unlock()
	cache.mu.Lock()
	cache.fetched = cache.fetched.Add(-time.Hour) // past the TTL
	cache.tried = cache.fetched
	cache.mu.Unlock()
	if w := request(h, "GET", "/v1/stats", bearer(k1.sign(t, goodClaims()))); w.Code != http.StatusOK {
		t.Fatalf("stale key during outage: %d %s", w.Code, w.Body)
	}
	if n := p.fetches.Load(); n != 2 {
		t.Errorf("fetches = %d, want 2 (refresh attempted)", n)
	}
}
