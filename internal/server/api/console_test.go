package api_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"ragd/internal/authn"
	"ragd/internal/testkit/stack"
)

// noRedirect is a client that shows redirects instead of following them.
var noRedirect = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

func TestConsoleFiles(t *testing.T) {
	t.Parallel()
	s := stack.Start(t, stack.Config(t), false)
	resp, err := noRedirect.Get(s.URL + "/ui")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMovedPermanently || resp.Header.Get("Location") != "/ui/" {
		t.Fatalf("GET /ui: %d %q", resp.StatusCode, resp.Header.Get("Location"))
	}
	page := s.Do(t, "GET", "/ui/", nil)
	if page.Status != 200 || !strings.Contains(string(page.Body), `<script src="app.js"`) ||
		!strings.Contains(page.Header.Get("Content-Security-Policy"), "default-src 'self'") ||
		strings.Contains(string(page.Body), "http://") || strings.Contains(string(page.Body), "https://") {
		t.Fatalf("GET /ui/: %d %v %.200s", page.Status, page.Header, page.Body)
	}
	for path, ctype := range map[string]string{"/ui/app.js": "javascript", "/ui/app.css": "text/css"} {
		r := s.Do(t, "GET", path, nil)
		if r.Status != 200 || !strings.Contains(r.Header.Get("Content-Type"), ctype) || strings.Contains(string(r.Body), "https://") {
			t.Errorf("GET %s: %d %q", path, r.Status, r.Header.Get("Content-Type"))
		}
	}
	if r := s.Do(t, "GET", "/ui/missing.js", nil); r.Status != 404 {
		t.Errorf("missing file: %d", r.Status)
	}
	// Auth disabled: the console needs no login.
	if r := s.Do(t, "GET", authn.SessionPath, nil); r.Status != 200 || r.JSON["logged_in"] != true || r.JSON["mode"] != "disabled" {
		t.Errorf("session, auth disabled: %d %s", r.Status, r.Body)
	}
	// The console is no API route.
	if spec := s.Do(t, "GET", "/openapi.json", nil); strings.Contains(string(spec.Body), `"/ui`) {
		t.Error("the OpenAPI document lists the console")
	}
}

func TestConsoleLoginOnRedis(t *testing.T) {
	t.Parallel()
	s := authStack(t)
	// The files and the login form are public with auth on.
	if r := s.Do(t, "GET", "/ui/", nil); r.Status != 200 {
		t.Fatalf("GET /ui/ with auth on: %d", r.Status)
	}
	status, _, out := doAuth(t, s, "POST", authn.LoginPath, "", map[string]string{"token": "wrong"})
	if status != 401 || !strings.Contains(str(out, "detail"), "login refused") {
		t.Fatalf("wrong key: %d %v", status, out)
	}
	req, _ := http.NewRequest("POST", s.URL+authn.LoginPath, strings.NewReader(`{"token":"tok-admin-0123456789"}`))
	req.Header.Set("Origin", s.URL)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	var cookie *http.Cookie
	for _, c := range resp.Cookies() {
		if c.Name == authn.SessionCookie {
			cookie = c
		}
	}
	if resp.StatusCode != 200 || cookie == nil || !cookie.HttpOnly || cookie.SameSite != http.SameSiteStrictMode {
		t.Fatalf("login: %d %+v", resp.StatusCode, cookie)
	}
	// The session is in Redis under the stack's prefix, with a TTL.
	keys, err := s.Redis.Keys(context.Background(), s.Config.Redis.KeyPrefix+":session:*").Result()
	if err != nil || len(keys) != 1 {
		t.Fatalf("session keys %v (%v)", keys, err)
	}
	if ttl := s.Redis.TTL(context.Background(), keys[0]).Val(); ttl <= 0 || ttl > s.Config.Auth.SessionTTL {
		t.Errorf("session TTL %s", ttl)
	}
	cookieGet := func(path string) int {
		req, _ := http.NewRequest("GET", s.URL+path, nil)
		req.AddCookie(cookie)
		resp, err := noRedirect.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	for _, path := range []string{"/tools/rag_stats", "/jobs", "/monitoring/", "/monitoring/api/queues"} {
		if code := cookieGet(path); code != 200 {
			t.Errorf("GET %s with the session cookie: %d", path, code)
		}
	}
	status, _, _ = doAuth(t, s, "POST", authn.LogoutPath, "", nil, "Origin", s.URL, "Cookie", authn.SessionCookie+"="+cookie.Value)
	if status != 200 {
		t.Fatalf("logout: %d", status)
	}
	if code := cookieGet("/tools/rag_stats"); code != 401 {
		t.Errorf("cookie after logout: %d", code)
	}
	if n := s.Redis.Exists(context.Background(), keys[0]).Val(); n != 0 {
		t.Error("logout left the session in Redis")
	}
}

// The session endpoints keep the rules of every other state-changing
// endpoint: a login body of another type than JSON is 415 (no cookie), a
// logout the cookie rides on without Origin 403 (the session lives on).
func TestConsoleLoginAndLogoutRules(t *testing.T) {
	t.Parallel()
	s := authStack(t)
	token := map[string]string{"token": "tok-admin-0123456789"}
	for _, ct := range []string{"text/plain", "application/x-www-form-urlencoded"} {
		status, h, out := doAuth(t, s, "POST", authn.LoginPath, "", token, "Content-Type", ct, "Origin", s.URL)
		if status != http.StatusUnsupportedMediaType || h.Get("Set-Cookie") != "" || !strings.Contains(str(out, "detail"), "application/json") {
			t.Errorf("login as %s: %d %v cookie %q", ct, status, out, h.Get("Set-Cookie"))
		}
	}
	status, h, _ := doAuth(t, s, "POST", authn.LoginPath, "", token, "Origin", s.URL)
	resp := http.Response{Header: h}
	var cookie *http.Cookie
	for _, c := range resp.Cookies() {
		if c.Name == authn.SessionCookie {
			cookie = c
		}
	}
	if status != 200 || cookie == nil {
		t.Fatalf("JSON login: %d %v", status, h)
	}
	withCookie := authn.SessionCookie + "=" + cookie.Value
	if status, _, out := doAuth(t, s, "POST", authn.LogoutPath, "", nil, "Cookie", withCookie); status != http.StatusForbidden ||
		!strings.Contains(str(out, "detail"), "Origin") {
		t.Fatalf("logout without Origin: %d %v", status, out)
	}
	if status, _, _ := doAuth(t, s, "GET", "/tools/rag_stats", "", nil, "Cookie", withCookie); status != 200 {
		t.Fatalf("the refused logout ended the session: %d", status)
	}
	if status, _, _ := doAuth(t, s, "POST", authn.LogoutPath, "", nil, "Cookie", withCookie, "Origin", s.URL); status != 200 {
		t.Fatalf("logout with Origin: %d", status)
	}
	if status, _, _ := doAuth(t, s, "GET", "/tools/rag_stats", "", nil, "Cookie", withCookie); status != 401 {
		t.Fatalf("cookie after logout: %d", status)
	}
}
