package cli

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestCallbackRefusals: the loopback redirect takes only this sign-in's
// state, and a return from another issuer (RFC 9207 iss, required when
// the server says it sends it) is refused, as is an error the server
// sends back.
func TestCallbackRefusals(t *testing.T) {
	as := authServer{Issuer: "https://ragd.example", IssInAuthorization: true}
	cases := []struct {
		name, query string
		status      int
		code, err   string // what reaches the sign-in; both empty: nothing
	}{
		{"this sign-in", "?state=s1&code=c1&iss=https%3A%2F%2Fragd.example", 200, "c1", ""},
		{"another state", "?state=s2&code=c1&iss=https%3A%2F%2Fragd.example", 400, "", ""},
		{"no state", "?code=c1", 400, "", ""},
		{"another issuer", "?state=s1&code=c1&iss=https%3A%2F%2Fevil.example", 200, "", "another issuer"},
		{"no issuer", "?state=s1&code=c1", 200, "", "another issuer"},
		{"an error", "?state=s1&error=access_denied&iss=https%3A%2F%2Fragd.example", 200, "", "access_denied"},
	}
	for _, c := range cases {
		done := make(chan loopbackResult, 1)
		rec := httptest.NewRecorder()
		callbackHandler(as, "s1", done).ServeHTTP(rec, httptest.NewRequest(http.MethodGet, callbackPath+c.query, nil))
		if rec.Code != c.status {
			t.Errorf("%s: status %d, want %d", c.name, rec.Code, c.status)
		}
		var got loopbackResult
		select {
		case got = <-done:
		default:
		}
		if got.code != c.code || (c.err == "") != (got.err == nil) || (got.err != nil && !strings.Contains(got.err.Error(), c.err)) {
			t.Errorf("%s: %+v, want code %q, error %q", c.name, got, c.code, c.err)
		}
	}
}
