package authn

import (
	"net/http"
	"strings"
	"testing"
)

// Login takes the JSON the console sends and nothing else: text/plain and
// form bodies are what a foreign page may post without a CORS preflight.
func TestLoginTakesJSONOnly(t *testing.T) {
	a, store := staticSessions(t)
	h, _ := consoleServer(a)
	for _, ct := range []string{"text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", ""} {
		w := send(h, "POST", LoginPath, `{"token":"admin-secret"}`, nil, map[string]string{"Content-Type": ct, "Origin": ownOriginHdr})
		if w.Code != http.StatusUnsupportedMediaType || !strings.Contains(detail(t, w), "application/json") || sessionCookieOf(t, w) != nil {
			t.Errorf("login as %q: %d %s", ct, w.Code, w.Body)
		}
	}
	if store.len() != 0 {
		t.Fatal("a refused login stored a session")
	}
	// Parameters such as charset are fine.
	w := send(h, "POST", LoginPath, `{"token":"admin-secret"}`, nil, map[string]string{"Content-Type": "application/json; charset=utf-8", "Origin": ownOriginHdr})
	if w.Code != http.StatusOK || sessionCookieOf(t, w) == nil {
		t.Fatalf("JSON login: %d %s", w.Code, w.Body)
	}
}

// The session endpoints follow the cookie's Origin rule: a POST the cookie
// rides on must name its Origin. Without the cookie a login may lack one
// (curl): there is no session to ride on.
func TestSessionEndpointsWithCookieNeedOrigin(t *testing.T) {
	a, store := staticSessions(t)
	h, _ := consoleServer(a)
	c := login(t, h, "admin-secret")
	w := send(h, "POST", LogoutPath, "", c, nil)
	if w.Code != http.StatusForbidden || !strings.Contains(detail(t, w), "must carry an Origin header") || sessionCookieOf(t, w) != nil {
		t.Fatalf("logout without Origin: %d %s", w.Code, w.Body)
	}
	if store.len() != 1 {
		t.Fatal("a logout without Origin ended the session")
	}
	if w := send(h, "GET", SessionPath, "", c, nil); w.Code != http.StatusOK {
		t.Fatalf("session after the refused logout: %d %s", w.Code, w.Body)
	}
	if w := send(h, "POST", LoginPath, `{"token":"fin-secret"}`, c, nil); w.Code != http.StatusForbidden || sessionCookieOf(t, w) != nil {
		t.Fatalf("login carrying the cookie without Origin: %d %s", w.Code, w.Body)
	}
	if w := send(h, "POST", LoginPath, `{"token":"fin-secret"}`, nil, nil); w.Code != http.StatusOK || sessionCookieOf(t, w) == nil {
		t.Fatalf("cookie-less login without Origin: %d %s", w.Code, w.Body)
	}
	if w := send(h, "POST", LogoutPath, "", c, map[string]string{"Origin": "https://evil.example"}); w.Code != http.StatusForbidden {
		t.Fatalf("logout from a foreign origin: %d %s", w.Code, w.Body)
	}
	if w := send(h, "POST", LogoutPath, "", c, map[string]string{"Origin": ownOriginHdr}); w.Code != http.StatusOK || store.len() != 1 {
		t.Fatalf("logout with Origin: %d %s, %d sessions left", w.Code, w.Body, store.len())
	}
}
