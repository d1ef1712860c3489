package websearch

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"ragd"
)

const testKey = "sk-test-0123456789abcdef"

// newServer starts an httptest server standing in for a hosted provider.
func newServer(t *testing.T, h http.HandlerFunc) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv
}

// reply writes a canned answer.
func reply(status int, body string) http.HandlerFunc {
	return func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_, _ = w.Write([]byte(body))
	}
}

// stall answers only once the client has given up (or after 5 s).
func stall(w http.ResponseWriter, r *http.Request) {
	select {
	case <-r.Context().Done():
	case <-time.After(5 * time.Second):
	}
}

func assertNoSecret(t *testing.T, err error, secret string) {
	t.Helper()
	if err == nil {
		t.Fatal("want an error, got nil")
	}
	if strings.Contains(err.Error(), secret) {
		t.Fatalf("error text leaks the secret: %v", err)
	}
	for e := err; e != nil; e = errors.Unwrap(e) {
		if strings.Contains(e.Error(), secret) {
			t.Fatalf("wrapped error %T leaks the secret: %v", e, e)
		}
	}
}

// invalidField is the field a ragd.Invalid error names, or "".
func invalidField(err error) string {
	var re *ragd.Error
	if !errors.As(err, &re) || re.Kind != ragd.KindInvalid || len(re.Fields) == 0 {
		return ""
	}
	loc := re.Fields[0].Loc
	return loc[len(loc)-1]
}
