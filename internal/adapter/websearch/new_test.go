package websearch

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"testing"

	"ragd"
)

func TestNewChoosesProvider(t *testing.T) {
	cases := []struct {
		key, searx string
		want       string
	}{
		{"", "", ""},
		{"  ", " ", ""},
		{testKey, "", "serpapi"},
		{"", "http://127.0.0.1:8888", "searxng"},
		{testKey, "http://127.0.0.1:8888", "searxng"},
	}
	for _, c := range cases {
		p, err := New(c.key, c.searx, Options{})
		if err != nil {
			t.Fatalf("New(%q, %q): %v", c.key, c.searx, err)
		}
		got := ""
		if p != nil {
			got = p.Name()
		}
		if got != c.want {
			t.Errorf("New(%q, %q) = %q, want %q", c.key, c.searx, got, c.want)
		}
	}
}

func TestNewRejectsBadSearXNGURL(t *testing.T) {
	p, err := New(testKey, "not a url", Options{})
	if p != nil || invalidField(err) != "searxng_url" {
		t.Fatalf("got %#v, %v; want a nil Provider and an invalid searxng_url", p, err)
	}
}

func TestErrNotConfigured(t *testing.T) {
	const msg = "web search is not configured (set SERPAPI_KEY or websearch.searxng_url)"
	wrapped := fmt.Errorf("route: %w", ErrNotConfigured)
	if ErrNotConfigured.Error() != msg || !errors.Is(wrapped, ErrNotConfigured) ||
		ragd.KindOf(wrapped) != ragd.KindUnavailable || IsTransient(wrapped) {
		t.Fatalf("ErrNotConfigured = %q, kind %v, transient %v", ErrNotConfigured, ragd.KindOf(wrapped), IsTransient(wrapped))
	}
}

func TestIsTransient(t *testing.T) {
	cases := []struct {
		err  error
		want bool
	}{
		{nil, false},
		{errors.New("boom"), false},
		{context.Canceled, false},
		{fmt.Errorf("x: %w", context.DeadlineExceeded), true},
		{&StatusError{Status: 400}, false},
		{&StatusError{Status: 401}, false},
		{&StatusError{Status: 404}, false},
		{&StatusError{Status: 429}, true},
		{&StatusError{Status: 500}, true},
		{&StatusError{Status: 503}, true},
		{ragd.Invalid("query", "missing", "empty"), false},
		{ragd.Unavailable("websearch", errors.New("down")), true},
		{&net.OpError{Op: "dial", Net: "tcp", Err: errors.New("connection refused")}, true},
		{io.ErrUnexpectedEOF, true},
	}
	for _, c := range cases {
		if got := IsTransient(c.err); got != c.want {
			t.Errorf("IsTransient(%v) = %v, want %v", c.err, got, c.want)
		}
	}
}
