package worker

import (
	"context"
	"errors"
	"testing"
	"time"

	"ragd"
	"ragd/internal/platform/resilience"
)

// A job that failed on an open breaker retries after the breaker's open
// interval at the earliest, later on each retry, so that worker.max_retries
// (3) outlasts a 40 s outage; it once retried after 1, 2 and 4 s, met the
// breaker still open each time and failed for good (158 of 200 files
// across a 40 s stop). Other failures keep their short backoff.
func TestRetryDelayOutlastsAnOpenBreaker(t *testing.T) {
	openFor := 30 * time.Second
	g := resilience.New("weaviate", resilience.Policy{Timeout: time.Second, FailThreshold: 1, OpenFor: openFor,
		InitialBackoff: time.Millisecond, MaxBackoff: time.Millisecond}, nil, resilience.Hooks{})
	down := func(context.Context) error { return errors.New("connection refused") }
	unreachable := resilience.Run(context.Background(), g, "upsert", down)
	open := resilience.Run(context.Background(), g, "upsert", down)
	if ragd.KindOf(open) != ragd.KindUnavailable || g.State() != "open" {
		t.Fatalf("breaker %s, error %v", g.State(), open)
	}
	var total time.Duration
	for n := 0; n < 3; n++ {
		d := retryDelay(n, classify(open), nil)
		if d < openFor<<n || d > maxUnavailableDelay*3/2 {
			t.Fatalf("retry %d after an open breaker: %s, want at least %s", n, d, openFor<<n)
		}
		total += d
	}
	if total < 40*time.Second {
		t.Fatalf("3 retries span %s, less than a 40 s outage", total)
	}
	if d := retryDelay(0, classify(unreachable), nil); d < minUnavailableDelay {
		t.Fatalf("retry after Weaviate unreachable: %s, want at least %s", d, minUnavailableDelay)
	}
	if d := retryDelay(20, classify(open), nil); d > maxUnavailableDelay*3/2 {
		t.Fatalf("retry 20: %s, over %s", d, maxUnavailableDelay*3/2)
	}
	if d := retryDelay(0, errors.New("redis: connection pool timeout"), nil); d > time.Second {
		t.Fatalf("an untyped failure's first retry: %s, want at most 1 s", d)
	}
}
