package store

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"ragd"
	"ragd/internal/ingest"
	"ragd/internal/platform/resilience"
)

// A write Weaviate refuses for what it is — a gRPC message over a size
// limit (ResourceExhausted), an invalid one (InvalidArgument) — is the
// request's fault: typed so that the guard neither retries it nor counts
// it against the breaker every search shares, and its job fails at once.
// 7 chunks of 30 MiB once opened the breaker with their retries, and
// every search of every key answered 503 for 30–60 s.
func TestRefusedWriteKeepsTheBreakerClosed(t *testing.T) {
	tooLarge := status.Error(codes.ResourceExhausted, "grpc: received message larger than max (31457532 vs. 10485760)")
	invalid := status.Error(codes.InvalidArgument, "invalid object")
	if IsTransient(tooLarge) {
		t.Fatal("IsTransient(ResourceExhausted): want false, a retry sends the same message")
	}
	for _, c := range []struct {
		err  error
		kind ragd.ErrorKind
	}{{tooLarge, ragd.KindTooLarge}, {invalid, ragd.KindInvalid}} {
		err := refusedWrite("weaviate batch write", c.err)
		if ragd.KindOf(err) != c.kind || !ingest.IsPermanent(err) || IsTransient(err) {
			t.Fatalf("%v: kind %v, permanent %v, transient %v; want kind %v, permanent, not transient", c.err, ragd.KindOf(err),
				ingest.IsPermanent(err), IsTransient(err), c.kind)
		}
	}
	if err := refusedWrite("weaviate batch write", status.Error(codes.Unavailable, "connection refused")); !IsTransient(err) {
		t.Fatalf("an unavailable node is still transient: %v", err)
	}

	g := resilience.New("weaviate", resilience.Policy{Timeout: time.Second, MaxRetries: 3, FailThreshold: 3, OpenFor: time.Minute,
		InitialBackoff: time.Millisecond, MaxBackoff: time.Millisecond}, IsTransient, resilience.Hooks{})
	var calls atomic.Int32
	for i := 0; i < 10; i++ {
		for _, err := range []error{refusedWrite("weaviate batch write", tooLarge), tooLarge} {
			_ = resilience.Run(context.Background(), g, "upsert", func(context.Context) error { calls.Add(1); return err })
		}
	}
	if calls.Load() != 20 || g.State() != "closed" {
		t.Fatalf("20 refused writes: %d attempts, breaker %s; want 20 (no retry) and closed", calls.Load(), g.State())
	}
}
