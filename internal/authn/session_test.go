package authn

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// memSessions is a SessionStore in memory; down makes every call fail.
type memSessions struct {
	mu   sync.Mutex
	m    map[string][]byte
	ttls map[string]time.Duration
	down bool
}

func newMemSessions() *memSessions {
	return &memSessions{m: map[string][]byte{}, ttls: map[string]time.Duration{}}
}

var errStoreDown = errors.New("connection refused")

func (s *memSessions) Save(_ context.Context, key string, value []byte, ttl time.Duration) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.down {
		return errStoreDown
	}
	s.m[key], s.ttls[key] = value, ttl
	return nil
}

func (s *memSessions) Load(_ context.Context, key string) ([]byte, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.down {
		return nil, false, errStoreDown
	}
	v, ok := s.m[key]
	return v, ok, nil
}

func (s *memSessions) Delete(_ context.Context, key string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.down {
		return errStoreDown
	}
	delete(s.m, key)
	return nil
}

func (s *memSessions) len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.m)
}

// consoleServer is the middleware in front of the session endpoints and a
// handler recording the principal, as api mounts them.
func consoleServer(a *Authenticator) (http.Handler, *seen) {
	s := &seen{}
	mux := http.NewServeMux()
	mux.Handle("POST "+LoginPath, a.LoginHandler())
	mux.Handle("POST "+LogoutPath, a.LogoutHandler())
	mux.Handle("GET "+SessionPath, a.SessionHandler())
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		s.called, s.principal = true, FromContext(r.Context())
		w.WriteHeader(http.StatusOK)
	})
	return a.Middleware(mux), s
}

const ownOriginHdr = "http://rag.example.com"

// send runs one request with an optional body and cookie through h. A
// body is labelled application/json, as the console sends it, unless
// header sets Content-Type.
func send(h http.Handler, method, path, body string, c *http.Cookie, header map[string]string) *httptest.ResponseRecorder {
	r := httptest.NewRequest(method, "http://rag.example.com"+path, strings.NewReader(body))
	if body != "" {
		r.Header.Set("Content-Type", "application/json")
	}
	if c != nil {
		r.AddCookie(c)
	}
	for k, v := range header {
		r.Header.Set(k, v)
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w
}

func sessionCookieOf(t *testing.T, w *httptest.ResponseRecorder) *http.Cookie {
	t.Helper()
	for _, c := range w.Result().Cookies() {
		if c.Name == SessionCookie {
			return c
		}
	}
	return nil
}

func staticSessions(t *testing.T, keys ...Key) (*Authenticator, *memSessions) {
	t.Helper()
	if len(keys) == 0 {
		keys = []Key{{Name: "admin", Token: "admin-secret", Groups: []string{"*"}}, {Name: "fin", Token: "fin-secret", Namespaces: []string{"finance"}}}
	}
	a := mustNew(t, Config{Mode: ModeStaticToken, Keys: keys})
	store := newMemSessions()
	a.EnableSessions(store, time.Hour)
	return a, store
}

func login(t *testing.T, h http.Handler, token string) *http.Cookie {
	t.Helper()
	w := send(h, "POST", LoginPath, `{"token":"`+token+`"}`, nil, map[string]string{"Origin": ownOriginHdr})
	c := sessionCookieOf(t, w)
	if w.Code != http.StatusOK || c == nil {
		t.Fatalf("login: %d %s cookie %v", w.Code, w.Body, c)
	}
	return c
}

func TestLoginRefusesWrongAndMissingKeys(t *testing.T) {
	a, store := staticSessions(t)
	h, _ := consoleServer(a)
	w := send(h, "POST", LoginPath, `{"token":"nope"}`, nil, nil)
	if w.Code != http.StatusUnauthorized || !strings.Contains(detail(t, w), "login refused: the API key or token is not valid") {
		t.Fatalf("wrong key: %d %s", w.Code, w.Body)
	}
	if sessionCookieOf(t, w) != nil || store.len() != 0 {
		t.Fatalf("a refused login set a cookie or stored a session")
	}
	for _, body := range []string{``, `{}`, `{"token":""}`, `not json`} {
		w := send(h, "POST", LoginPath, body, nil, nil)
		if w.Code != http.StatusUnprocessableEntity || !strings.Contains(w.Body.String(), `"loc":["body","token"]`) {
			t.Errorf("body %.20q: %d %s", body, w.Code, w.Body)
		}
	}
	// A body over the bound is too large, as at every route.
	w = send(h, "POST", LoginPath, `{"token":"`+strings.Repeat("x", maxLoginBytes)+`"}`, nil, nil)
	if w.Code != http.StatusRequestEntityTooLarge || !strings.Contains(detail(t, w), "exceeds 65536 bytes") {
		t.Errorf("a body over %d bytes: %d %s", maxLoginBytes, w.Code, w.Body)
	}
	// A cross-site page cannot log a browser in (login CSRF).
	w = send(h, "POST", LoginPath, `{"token":"admin-secret"}`, nil, map[string]string{"Origin": "https://evil.example"})
	if w.Code != http.StatusForbidden || sessionCookieOf(t, w) != nil {
		t.Fatalf("foreign origin login: %d %s", w.Code, w.Body)
	}
}

func TestLoginSetsAnOpaqueStrictCookie(t *testing.T) {
	a, store := staticSessions(t)
	h, _ := consoleServer(a)
	w := send(h, "POST", LoginPath, `{"token":"fin-secret"}`, nil, nil)
	c := sessionCookieOf(t, w)
	if w.Code != http.StatusOK || c == nil {
		t.Fatalf("login: %d %s", w.Code, w.Body)
	}
	if !c.HttpOnly || c.SameSite != http.SameSiteStrictMode || c.Path != "/" || c.Secure || c.MaxAge <= 0 || c.MaxAge > 3600 {
		t.Errorf("cookie attributes: %+v", c)
	}
	var info SessionInfo
	if err := json.Unmarshal(w.Body.Bytes(), &info); err != nil || info.Principal != "fin" || !info.LoggedIn ||
		!slices.Equal(info.Namespaces, []string{"finance"}) || info.Operator || info.Mode != ModeStaticToken {
		t.Errorf("login answer %s (%v)", w.Body, err)
	}
	// Neither the cookie nor the store holds the key, and the store's key is
	// not the cookie.
	if strings.Contains(c.Value, "fin-secret") || len(c.Value) < 40 {
		t.Errorf("cookie value %q", c.Value)
	}
	for k, v := range store.m {
		if k == c.Value || strings.Contains(string(v), "fin-secret") || strings.Contains(string(v), c.Value) {
			t.Errorf("store entry %q = %s", k, v)
		}
		if ttl := store.ttls[k]; ttl <= 0 || ttl > time.Hour {
			t.Errorf("store TTL %s", ttl)
		}
	}
	// Over TLS the cookie is Secure.
	r := httptest.NewRequest("POST", "https://rag.example.com"+LoginPath, strings.NewReader(`{"token":"fin-secret"}`))
	r.Header.Set("Content-Type", "application/json")
	r.TLS = &tls.ConnectionState{}
	tw := httptest.NewRecorder()
	h.ServeHTTP(tw, r)
	if c := sessionCookieOf(t, tw); c == nil || !c.Secure {
		t.Errorf("TLS login cookie: %+v", c)
	}
}

func TestSessionCookieAuthenticates(t *testing.T) {
	a, _ := staticSessions(t)
	h, s := consoleServer(a)
	fin := login(t, h, "fin-secret")
	if w := send(h, "GET", "/tools/rag_stats", "", fin, nil); w.Code != http.StatusOK || s.principal == nil ||
		s.principal.Name != "fin" || !slices.Equal(s.principal.Namespaces, []string{"finance"}) {
		t.Fatalf("GET with cookie: %d principal %+v", w.Code, s.principal)
	}
	// State-changing requests need the page's own Origin.
	s.called = false
	w := send(h, "POST", "/tools/rag_search", "{}", fin, nil)
	if w.Code != http.StatusForbidden || s.called || !strings.Contains(detail(t, w), "must carry an Origin header") {
		t.Fatalf("cookie POST without Origin: %d %s", w.Code, w.Body)
	}
	if w := send(h, "DELETE", "/documents/x", "", fin, map[string]string{"Origin": "https://evil.example"}); w.Code != http.StatusForbidden {
		t.Fatalf("cookie DELETE from a foreign origin: %d", w.Code)
	}
	if w := send(h, "POST", "/tools/rag_search", "{}", fin, map[string]string{"Origin": ownOriginHdr}); w.Code != http.StatusOK {
		t.Fatalf("cookie POST with own Origin: %d %s", w.Code, w.Body)
	}
	// A bearer token still wins over the cookie, and needs no Origin.
	if w := send(h, "POST", "/x", "", fin, bearer("admin-secret")); w.Code != http.StatusOK || s.principal.Name != "admin" {
		t.Fatalf("bearer with cookie: %d %+v", w.Code, s.principal)
	}
	// The operator UI opens with an unlimited key's cookie, not a limited one's.
	if w := send(h, "GET", "/monitoring/api/queues", "", fin, nil); w.Code != http.StatusForbidden {
		t.Fatalf("limited cookie on /monitoring: %d", w.Code)
	}
	admin := login(t, h, "admin-secret")
	if w := send(h, "GET", "/monitoring", "", admin, nil); w.Code != http.StatusOK || s.principal.Name != "admin" {
		t.Fatalf("admin cookie on /monitoring: %d", w.Code)
	}
	// A forged or stale cookie is 401, like a bad token.
	bad := &http.Cookie{Name: SessionCookie, Value: "forged"}
	if w := send(h, "GET", "/tools/rag_stats", "", bad, nil); w.Code != http.StatusUnauthorized ||
		!strings.Contains(detail(t, w), "session expired or logged out") {
		t.Fatalf("forged cookie: %d %s", w.Code, w.Body)
	}
}

func TestSessionEndpointAndLogout(t *testing.T) {
	a, store := staticSessions(t)
	h, _ := consoleServer(a)
	w := send(h, "GET", SessionPath, "", nil, nil)
	if w.Code != http.StatusUnauthorized || !strings.Contains(w.Body.String(), `"mode":"static-token"`) {
		t.Fatalf("session without cookie: %d %s", w.Code, w.Body)
	}
	c := login(t, h, "admin-secret")
	w = send(h, "GET", SessionPath, "", c, nil)
	if w.Code != http.StatusOK || !strings.Contains(w.Body.String(), `"principal":"admin"`) || !strings.Contains(w.Body.String(), `"operator":true`) {
		t.Fatalf("session with cookie: %d %s", w.Code, w.Body)
	}
	w = send(h, "POST", LogoutPath, "", c, map[string]string{"Origin": ownOriginHdr})
	cleared := sessionCookieOf(t, w)
	if w.Code != http.StatusOK || cleared == nil || cleared.MaxAge >= 0 || cleared.Value != "" {
		t.Fatalf("logout: %d %s cookie %+v", w.Code, w.Body, cleared)
	}
	if store.len() != 0 {
		t.Fatal("logout left the session in the store")
	}
	// The old cookie is dead server-side, not only in the browser.
	if w := send(h, "GET", "/tools/rag_stats", "", c, nil); w.Code != http.StatusUnauthorized {
		t.Fatalf("cookie after logout: %d", w.Code)
	}
	if w := send(h, "POST", LogoutPath, "", nil, nil); w.Code != http.StatusOK {
		t.Fatalf("logout without a session: %d", w.Code)
	}
}

func TestSessionFollowsItsKey(t *testing.T) {
	a, store := staticSessions(t, Key{Name: "ops", Token: "ops-secret", Namespaces: []string{"a"}})
	h, _ := consoleServer(a)
	c := login(t, h, "ops-secret")
	// The same store behind a server whose "ops" key now has other
	// namespaces, and one without it (the key was removed).
	moved := mustNew(t, Config{Mode: ModeStaticToken, Keys: []Key{{Name: "ops", Token: "new-secret", Namespaces: []string{"b"}}}})
	moved.EnableSessions(store, time.Hour)
	mh, ms := consoleServer(moved)
	if w := send(mh, "GET", "/x", "", c, nil); w.Code != http.StatusOK || !slices.Equal(ms.principal.Namespaces, []string{"b"}) {
		t.Fatalf("moved key: %d %+v", w.Code, ms.principal)
	}
	gone := mustNew(t, Config{Mode: ModeStaticToken, Keys: []Key{{Name: "other", Token: "other-secret"}}})
	gone.EnableSessions(store, time.Hour)
	gh, _ := consoleServer(gone)
	if w := send(gh, "GET", "/x", "", c, nil); w.Code != http.StatusUnauthorized {
		t.Fatalf("removed key's session: %d", w.Code)
	}
}

func TestSessionStoreDownIs503(t *testing.T) {
	a, store := staticSessions(t)
	h, _ := consoleServer(a)
	c := login(t, h, "admin-secret")
	store.down = true
	for _, w := range []*httptest.ResponseRecorder{
		send(h, "POST", LoginPath, `{"token":"admin-secret"}`, nil, nil),
		send(h, "GET", "/tools/rag_stats", "", c, nil),
		send(h, "GET", SessionPath, "", c, nil),
		send(h, "POST", LogoutPath, "", c, map[string]string{"Origin": ownOriginHdr}),
	} {
		if w.Code != http.StatusServiceUnavailable || w.Header().Get("Retry-After") == "" {
			t.Errorf("store down: %d %s", w.Code, w.Body)
		}
	}
}

func TestLoginWithoutSessionsOrAuth(t *testing.T) {
	a := mustNew(t, Config{Mode: ModeStaticToken, Keys: []Key{{Name: "k", Token: "k-secret"}}})
	h, _ := consoleServer(a)
	if w := send(h, "POST", LoginPath, `{"token":"k-secret"}`, nil, nil); w.Code != http.StatusNotFound {
		t.Fatalf("sessions not enabled: %d %s", w.Code, w.Body)
	}
	off := mustNew(t, Config{})
	oh, _ := consoleServer(off)
	w := send(oh, "GET", SessionPath, "", nil, nil)
	if w.Code != http.StatusOK || !strings.Contains(w.Body.String(), `"logged_in":true`) {
		t.Fatalf("auth disabled session: %d %s", w.Code, w.Body)
	}
}

func TestJWTSessionEndsWithTheToken(t *testing.T) {
	p := newIDP(t)
	k := rsaSigner(t, "k1")
	p.publish(k.jwk())
	a := mustNew(t, jwtConfig(p))
	store := newMemSessions()
	a.EnableSessions(store, 24*time.Hour)
	h, s := consoleServer(a)
	claims := goodClaims()
	claims["exp"] = time.Now().Add(10 * time.Minute).Unix()
	c := login(t, h, k.sign(t, claims))
	if c.MaxAge > 600 {
		t.Errorf("cookie outlives the JWT: MaxAge %d", c.MaxAge)
	}
	for _, ttl := range store.ttls {
		if ttl > 10*time.Minute {
			t.Errorf("stored session outlives the JWT: %s", ttl)
		}
	}
	if w := send(h, "GET", "/x", "", c, nil); w.Code != http.StatusOK || s.principal.Name != "alice" ||
		!slices.Equal(s.principal.Namespaces, []string{"finance", "hr"}) {
		t.Fatalf("jwt cookie: %d %+v", w.Code, s.principal)
	}
	// A token without the required scope is refused at login.
	claims["scope"] = "other"
	w := send(h, "POST", LoginPath, `{"token":"`+k.sign(t, claims)+`"}`, nil, nil)
	if w.Code != http.StatusForbidden || sessionCookieOf(t, w) != nil {
		t.Fatalf("scope-less jwt login: %d %s", w.Code, w.Body)
	}
}
