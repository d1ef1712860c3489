package authn

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
)

// loopbackServer serves the disabled-mode middleware on 127.0.0.1, so the
// connection's local address is loopback as in `ragd serve` on 127.0.0.1.
func loopbackServer(t *testing.T, cfg Config) *httptest.Server {
	t.Helper()
	h, _ := protect(mustNew(t, cfg))
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv
}

func post(t *testing.T, url, host, origin string) (int, string) {
	t.Helper()
	req, err := http.NewRequestWithContext(context.Background(), "POST", url+"/mcp", nil)
	if err != nil {
		t.Fatal(err)
	}
	if host != "" {
		req.Host = host
	}
	if origin != "" {
		req.Header.Set("Origin", origin)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}

func TestOriginOnLoopback(t *testing.T) {
	srv := loopbackServer(t, Config{AllowedOrigins: []string{"https://app.example.com", "http://localhost:6274"}})
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	for _, tc := range []struct {
		host, origin string
		want         int
	}{
		{"", "", http.StatusOK},      // curl, SDK clients
		{"", srv.URL, http.StatusOK}, // same host
		{"localhost:" + port, "http://localhost:" + port, http.StatusOK},       // same host by name
		{"localhost:" + port, "http://LOCALHOST:" + port + "/", http.StatusOK}, // normalized
		{"", "http://localhost:6274", http.StatusOK},                           // AllowedOrigins (MCP Inspector)
		{"", "https://app.example.com", http.StatusOK},                         // AllowedOrigins
		{"", "https://APP.example.com:443/", http.StatusOK},                    // normalized
		// Any other local port is another web server, maybe a hostile page.
		{"", "http://localhost:3000", http.StatusForbidden},
		{"", "http://localhost:6275", http.StatusForbidden},  // allowed host, other port
		{"", "https://localhost:6274", http.StatusForbidden}, // allowed host and port, other scheme
		{"", "https://localhost", http.StatusForbidden},
		{"", "http://localhost", http.StatusForbidden},
		{"", "http://127.0.0.1:3000", http.StatusForbidden},
		{"", "http://[::1]:5173", http.StatusForbidden},
		{"", "https://127.0.0.1:" + port, http.StatusForbidden},                 // own host and port, other scheme
		{"localhost:" + port, "http://127.0.0.1:" + port, http.StatusForbidden}, // own port, other host name
		{"", "https://evil.example", http.StatusForbidden},                      // foreign site
		{"", "http://app.example.com", http.StatusForbidden},                    // scheme matters
		{"", "https://app.example.com:8443", http.StatusForbidden},              // port matters
		{"", "null", http.StatusForbidden},                                      // sandboxed frame
		{"", "http://localhost.evil.example", http.StatusForbidden},             // not localhost
		// DNS rebinding: evil.example resolved to 127.0.0.1; its page's
		// requests are "same origin" but carry the foreign Host.
		{"evil.example:" + port, "http://evil.example:" + port, http.StatusForbidden},
		{"evil.example:" + port, "", http.StatusForbidden},
		// A host named by an allowed origin may reach a loopback listener
		// (a reverse proxy on the same machine).
		{"app.example.com", "https://app.example.com", http.StatusOK},
	} {
		code, body := post(t, srv.URL, tc.host, tc.origin)
		if code != tc.want {
			t.Errorf("Host %q Origin %q: %d %s, want %d", tc.host, tc.origin, code, body, tc.want)
		}
	}
}

func TestOriginOffLoopback(t *testing.T) {
	// No connection address: as on a public interface, localhost origins
	// get no special treatment.
	h, _ := protect(mustNew(t, Config{AllowedOrigins: []string{"https://app.example.com"}}))
	for _, tc := range []struct {
		origin string
		want   int
	}{
		{"", http.StatusOK},
		{"http://rag.example.com", http.StatusOK}, // same host as the request
		{"https://app.example.com", http.StatusOK},
		{"http://localhost:6274", http.StatusForbidden},
		{"https://evil.example", http.StatusForbidden},
		{"http://rag.example.com:8080", http.StatusForbidden}, // other port
		{"https://rag.example.com", http.StatusForbidden},     // other scheme
	} {
		w := request(h, "GET", "/v1/stats", map[string]string{"Origin": tc.origin})
		if w.Code != tc.want {
			t.Errorf("Origin %q: %d %s, want %d", tc.origin, w.Code, w.Body, tc.want)
		}
	}
	w := request(h, "GET", "/v1/stats", map[string]string{"Origin": "https://evil.example"})
	if d := detail(t, w); d != "origin https://evil.example is not allowed" {
		t.Errorf("detail = %q", d)
	}
}

func TestOriginCheckedBeforeAuth(t *testing.T) {
	// A foreign page holding a valid token still may not call in.
	h, s := protect(mustNew(t, staticConfig()))
	w := request(h, "POST", "/mcp", map[string]string{
		"Authorization": "Bearer admin-secret-token-0123456789",
		"Origin":        "https://evil.example",
	})
	if w.Code != http.StatusForbidden || s.called {
		t.Fatalf("code %d called %v", w.Code, s.called)
	}
}
