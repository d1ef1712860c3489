package stack

import (
	"context"
	"net"
	"testing"

	"ragd/internal/app"
	"ragd/internal/platform/config"
)

// Listen reserves a loopback address for a stack that must know its URL
// before it starts (auth.resource_url, the issuer in auth.mode oauth),
// and returns the listener and its http:// URL.
func Listen(t testing.TB) (net.Listener, string) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	return l, "http://" + l.Addr().String()
}

// StartOn is Start serving on l (from Listen).
func StartOn(t testing.TB, cfg config.Config, withWorker bool, l net.Listener) *Stack {
	t.Helper()
	a, err := app.New(context.Background(), cfg, Logger(t))
	if err != nil {
		l.Close()
		t.Fatalf("start ragd: %v", err)
	}
	t.Cleanup(func() { dropCollection(t, cfg); a.Close() })
	return serve(t, a, withWorker, l)
}
