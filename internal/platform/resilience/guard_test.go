package resilience

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"ragd"
)

var errDown = errors.New("connection refused")
var errBad = errors.New("bad request")

func testPolicy() Policy {
	return Policy{Timeout: 50 * time.Millisecond, MaxRetries: 2, FailThreshold: 3, OpenFor: 200 * time.Millisecond,
		InitialBackoff: time.Millisecond, MaxBackoff: 5 * time.Millisecond}
}

func transient(err error) bool { return !errors.Is(err, errBad) }

func TestRetriesTransientThenSucceeds(t *testing.T) {
	g := New("weaviate", testPolicy(), transient, Hooks{})
	var calls atomic.Int32
	v, err := Do(context.Background(), g, "op", func(context.Context) (int, error) {
		if calls.Add(1) < 3 {
			return 0, errDown
		}
		return 42, nil
	})
	if err != nil || v != 42 || calls.Load() != 3 {
		t.Fatalf("got %d, %v after %d calls; want 42 after 3", v, err, calls.Load())
	}
	if g.State() != "closed" {
		t.Fatalf("state %s", g.State())
	}
}

func TestNonTransientIsNotRetriedAndKeepsBreakerClosed(t *testing.T) {
	g := New("embedder", testPolicy(), transient, Hooks{})
	var calls atomic.Int32
	for i := 0; i < 10; i++ {
		_, err := Do(context.Background(), g, "op", func(context.Context) (int, error) { calls.Add(1); return 0, errBad })
		if !errors.Is(err, errBad) {
			t.Fatalf("want the caller's error back, got %v", err)
		}
	}
	if calls.Load() != 10 || g.State() != "closed" {
		t.Fatalf("%d calls, state %s; want 10 calls and closed", calls.Load(), g.State())
	}
}

func TestBreakerOpensFailsFastAndRecovers(t *testing.T) {
	g := New("weaviate", testPolicy(), transient, Hooks{})
	var calls atomic.Int32
	down := func(context.Context) (int, error) { calls.Add(1); return 0, errDown }
	_, err := Do(context.Background(), g, "op", down) // 3 attempts = threshold
	if ragd.KindOf(err) != ragd.KindUnavailable || !strings.Contains(err.Error(), "weaviate") {
		t.Fatalf("exhausted retries: %v", err)
	}
	if g.State() != "open" {
		t.Fatalf("after %d failures state is %s", calls.Load(), g.State())
	}
	before := calls.Load()
	_, err = Do(context.Background(), g, "op", down)
	var re *ragd.Error
	if !errors.As(err, &re) || re.Kind != ragd.KindUnavailable || !strings.Contains(re.Message, "circuit breaker is open") || re.RetryAfterSeconds < 1 {
		t.Fatalf("open breaker: %v", err)
	}
	if calls.Load() != before {
		t.Fatalf("open breaker called the dependency %d times", calls.Load()-before)
	}
	time.Sleep(250 * time.Millisecond) // OpenFor passes: half-open lets one call probe
	v, err := Do(context.Background(), g, "op", func(context.Context) (int, error) { return 7, nil })
	if err != nil || v != 7 || g.State() != "closed" {
		t.Fatalf("after recovery: %d, %v, state %s", v, err, g.State())
	}
}

func TestTimeoutBecomesUnavailable(t *testing.T) {
	p := testPolicy()
	p.MaxRetries = 0
	g := New("llm", p, nil, Hooks{})
	_, err := Do(context.Background(), g, "op", func(ctx context.Context) (int, error) {
		<-ctx.Done()
		return 0, ctx.Err()
	})
	if ragd.KindOf(err) != ragd.KindUnavailable || !strings.Contains(err.Error(), "llm did not answer within 50ms") {
		t.Fatalf("timeout: %v", err)
	}
}

func TestCallerCancellationIsNotRetried(t *testing.T) {
	g := New("weaviate", testPolicy(), nil, Hooks{})
	ctx, cancel := context.WithCancel(context.Background())
	var calls atomic.Int32
	_, err := Do(ctx, g, "op", func(context.Context) (int, error) { calls.Add(1); cancel(); return 0, context.Canceled })
	if !errors.Is(err, context.Canceled) || calls.Load() != 1 || g.State() != "closed" {
		t.Fatalf("cancelled: %v after %d calls, state %s", err, calls.Load(), g.State())
	}
}

// A stream may outlive the per-attempt timeout: the guard sets no deadline
// on it (the adapter bounds each wait for a chunk instead).
func TestDoStreamHasNoDeadline(t *testing.T) {
	g := New("llm", testPolicy(), nil, Hooks{}) // 50 ms per attempt
	v, err := DoStream(context.Background(), g, "op", func(ctx context.Context) (int, error) {
		if _, ok := ctx.Deadline(); ok {
			return 0, errors.New("the stream got a deadline")
		}
		select {
		case <-ctx.Done():
			return 0, ctx.Err()
		case <-time.After(200 * time.Millisecond): // four attempts' worth
			return 1, nil
		}
	})
	if err != nil || v != 1 {
		t.Fatalf("stream: %d, %v", v, err)
	}
}

// A zero timeout is the default one, not a deadline already passed.
func TestZeroTimeoutIsTheDefault(t *testing.T) {
	p := testPolicy()
	p.Timeout = 0
	g := New("embedder", p, nil, Hooks{})
	if g.Timeout() != DefaultPolicy().Timeout {
		t.Fatalf("timeout %s", g.Timeout())
	}
	if _, err := Do(context.Background(), g, "op", func(context.Context) (int, error) { return 1, nil }); err != nil {
		t.Fatal(err)
	}
}

// Callers tell an open breaker by ragd.ErrBreakerOpen, not by the breaker
// library's errors, and the hooks name states by their names: no package
// outside this one needs the breaker library.
func TestOpenBreakerIsErrBreakerOpen(t *testing.T) {
	var changes []string
	g := New("weaviate", testPolicy(), transient, Hooks{StateChange: func(name, from, to string) {
		changes = append(changes, name+":"+from+">"+to)
	}})
	down := func(context.Context) (int, error) { return 0, errDown }
	_, err := Do(context.Background(), g, "op", down)
	if errors.Is(err, ragd.ErrBreakerOpen) {
		t.Fatalf("a failed call is not the breaker's refusal: %v", err)
	}
	_, err = Do(context.Background(), g, "op", down)
	if !errors.Is(err, ragd.ErrBreakerOpen) || ragd.KindOf(err) != ragd.KindUnavailable {
		t.Fatalf("open breaker: %v (kind %v), want ragd.ErrBreakerOpen, unavailable", err, ragd.KindOf(err))
	}
	if want := "weaviate is unavailable: circuit breaker is open after repeated failures: circuit breaker is open"; err.Error() != want {
		t.Fatalf("open breaker's text %q, want %q", err.Error(), want)
	}
	if len(changes) != 1 || changes[0] != "weaviate:closed>open" {
		t.Fatalf("state changes %v, want [weaviate:closed>open]", changes)
	}
}
