package client_test

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"ragd/wire"
	"testing"

	"ragd/client"
)

// The server's error bodies become *APIError with its message: a string
// detail as it is, a validation error as its fields at fault.
func TestAPIErrorCarriesTheServersMessage(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if got := r.Header.Get("Authorization"); got != "Bearer k-123" {
			http.Error(w, `{"detail":"missing or invalid API key"}`, http.StatusUnauthorized)
			return
		}
		switch r.URL.Path {
		case "/tools/rag_search":
			w.WriteHeader(http.StatusUnprocessableEntity)
			_, _ = w.Write([]byte(`{"detail":[{"loc":["body","top_k"],"msg":"top_k must be between 1 and 20, not 50","type":"value_error"},{"loc":[],"msg":"and more","type":"x"}]}`))
		case "/jobs/j1/cancel":
			w.WriteHeader(http.StatusConflict)
			_, _ = w.Write([]byte(`{"detail":"job j1 is already completed"}`))
		default:
			w.WriteHeader(http.StatusBadGateway)
			_, _ = w.Write([]byte("<html>proxy error</html>"))
		}
	}))
	defer srv.Close()
	c, err := client.New(srv.URL+"/", "k-123")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	cases := []struct {
		call   func() error
		status int
		detail string
	}{
		{func() error { _, err := c.Search(ctx, wire.RetrieveRequest{Query: "q"}); return err }, 422,
			"body.top_k: top_k must be between 1 and 20, not 50; and more"},
		{func() error { _, err := c.CancelJob(ctx, "j1"); return err }, 409, "job j1 is already completed"},
		{func() error { _, err := c.ListJobs(ctx, wire.JobListRequest{}); return err }, 502, "<html>proxy error</html>"},
	}
	for _, tc := range cases {
		var ae *client.APIError
		if err := tc.call(); !errors.As(err, &ae) || ae.Status != tc.status || ae.Detail != tc.detail || client.IsUnreachable(err) {
			t.Errorf("want %d %q, got %v", tc.status, tc.detail, err)
		}
	}
	anon, _ := client.New(srv.URL, "")
	var ae *client.APIError
	if _, err := anon.Job(ctx, "x"); !errors.As(err, &ae) || ae.Status != 401 || ae.Error() != "missing or invalid API key (401 Unauthorized)" {
		t.Errorf("without a token: %v", err)
	}
}

// No answer at all is an *UnreachableError naming the server; a URL that
// is not http(s) is refused before any request.
func TestUnreachable(t *testing.T) {
	t.Parallel()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	c, err := client.New("http://"+addr, "")
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Job(context.Background(), "x")
	if !client.IsUnreachable(err) || err.Error() != "cannot reach ragd at http://"+addr+": dial tcp "+addr+": connect: connection refused" {
		t.Errorf("closed port: %v", err)
	}
	for _, bad := range []string{"", "127.0.0.1:8000", "ftp://host", "http://"} {
		if _, err := client.New(bad, ""); err == nil {
			t.Errorf("server %q accepted", bad)
		}
	}
}

// NewWithTokens asks for the token before each call (so a renewed one is
// sent), and a token it cannot give fails the call without sending it.
func TestNewWithTokensAsksEachCall(t *testing.T) {
	t.Parallel()
	var seen []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen = append(seen, r.Header.Get("Authorization"))
		_, _ = w.Write([]byte(`{"jobs":[],"count":0}`))
	}))
	defer srv.Close()
	n := 0
	c, err := client.NewWithTokens(srv.URL, func(context.Context) (string, error) {
		n++
		if n == 3 {
			return "", errors.New("sign-in expired")
		}
		return "tok-" + string(rune('0'+n)), nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if _, err := c.ListJobs(context.Background(), wire.JobListRequest{}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := c.ListJobs(context.Background(), wire.JobListRequest{}); err == nil || err.Error() != "sign-in expired" {
		t.Fatalf("third call: %v", err)
	}
	if len(seen) != 2 || seen[0] != "Bearer tok-1" || seen[1] != "Bearer tok-2" {
		t.Fatalf("sent %q", seen)
	}
}
