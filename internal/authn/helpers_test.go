package authn

import (
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"ragd/internal/testkit/testenv"
	"testing"
)

func debugLogger(w *testenv.Buffer) *slog.Logger {
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

func mustNew(t *testing.T, cfg Config) *Authenticator {
	t.Helper()
	a, err := New(cfg, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return a
}

// seen records what the protected handler saw.
type seen struct {
	called    bool
	principal *Principal
}

// protect wraps a handler that records the principal and answers 200.
func protect(a *Authenticator) (http.Handler, *seen) {
	s := &seen{}
	h := a.Middleware(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.called = true
		s.principal = FromContext(r.Context())
		w.WriteHeader(http.StatusOK)
	}))
	return h, s
}

// request runs one request through h (no connection, so not loopback).
func request(h http.Handler, method, path string, header map[string]string) *httptest.ResponseRecorder {
	r := httptest.NewRequest(method, "http://rag.example.com"+path, nil)
	for k, v := range header {
		r.Header.Set(k, v)
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w
}

func bearer(token string) map[string]string {
	return map[string]string{"Authorization": "Bearer " + token}
}

func detail(t *testing.T, w *httptest.ResponseRecorder) string {
	t.Helper()
	if ct := w.Header().Get("Content-Type"); ct != "application/json" {
		t.Errorf("Content-Type = %q, want application/json", ct)
	}
	var body struct {
		Detail string `json:"detail"`
	}
	if err := json.Unmarshal(w.Body.Bytes(), &body); err != nil {
		t.Fatalf("body %q: %v", w.Body.String(), err)
	}
	return body.Detail
}
