package websearch

import (
	"context"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"ragd"
	"ragd/internal/platform/resilience"
)

func testGuard(threshold uint32, retries int) *resilience.Guard {
	return resilience.New("websearch", resilience.Policy{Timeout: time.Second, MaxRetries: retries,
		FailThreshold: threshold, OpenFor: time.Minute, InitialBackoff: time.Millisecond, MaxBackoff: 5 * time.Millisecond},
		IsTransient, resilience.Hooks{})
}

// counting serves status/body and counts the requests it got.
func counting(hits *atomic.Int32, status func(n int32) int, body string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		n := hits.Add(1)
		reply(status(n), body)(w, r)
	}
}

func TestGuardedBreakerOpensAfterFailures(t *testing.T) {
	var hits atomic.Int32
	srv := newServer(t, counting(&hits, func(int32) int { return 500 }, `{"error": "backend down"}`))
	g := testGuard(2, 0)
	p := Guarded(NewSerpAPI(testKey, Options{BaseURL: srv.URL}), g)
	for i := 0; i < 2; i++ {
		_, err := p.Search(context.Background(), "q", 5)
		if ragd.KindOf(err) != ragd.KindUnavailable || !strings.Contains(err.Error(), "backend down") {
			t.Fatalf("call %d: got %v; want Unavailable carrying the provider's message", i, err)
		}
		assertNoSecret(t, err, testKey)
	}
	_, err := p.Search(context.Background(), "q", 5)
	if !strings.Contains(err.Error(), "circuit breaker is open") || ragd.KindOf(err) != ragd.KindUnavailable {
		t.Fatalf("third call: %v; want a fast breaker-open failure", err)
	}
	if hits.Load() != 2 || g.State() != "open" {
		t.Fatalf("%d requests, breaker %s; want 2 and open", hits.Load(), g.State())
	}
}

func TestGuardedRetriesTransientFailure(t *testing.T) {
	var hits atomic.Int32
	status := func(n int32) int {
		if n == 1 {
			return 503
		}
		return 200
	}
	srv := newServer(t, counting(&hits, status, serpAnswerJSON))
	p := Guarded(NewSerpAPI(testKey, Options{BaseURL: srv.URL}), testGuard(5, 2))
	res, err := p.Search(context.Background(), "q", 2)
	if err != nil || len(res) != 2 || hits.Load() != 2 {
		t.Fatalf("got %d results, %v after %d requests; want 2 results after 2", len(res), err, hits.Load())
	}
}

func TestGuardedBadKeyIsNotRetriedNorCounted(t *testing.T) {
	var hits atomic.Int32
	srv := newServer(t, counting(&hits, func(int32) int { return 401 }, `{"error": "Invalid API key."}`))
	g := testGuard(2, 3)
	p := Guarded(NewSerpAPI(testKey, Options{BaseURL: srv.URL}), g)
	for i := 0; i < 4; i++ {
		_, err := p.Search(context.Background(), "q", 5)
		if err == nil || !strings.Contains(err.Error(), "Invalid API key") {
			t.Fatalf("got %v", err)
		}
	}
	if hits.Load() != 4 || g.State() != "closed" {
		t.Fatalf("%d requests, breaker %s; want 4 and closed", hits.Load(), g.State())
	}
}

func TestGuardedValidatesOutsideTheGuard(t *testing.T) {
	var hits atomic.Int32
	srv := newServer(t, counting(&hits, func(int32) int { return 200 }, serpAnswerJSON))
	g := testGuard(1, 0)
	p := Guarded(NewSerpAPI(testKey, Options{BaseURL: srv.URL}), g)
	for i := 0; i < 3; i++ {
		if _, err := p.Search(context.Background(), "", 5); invalidField(err) != "query" {
			t.Fatalf("got %v", err)
		}
	}
	if hits.Load() != 0 || g.State() != "closed" || p.Name() != "serpapi" {
		t.Fatalf("%d requests, breaker %s, name %s", hits.Load(), g.State(), p.Name())
	}
}

func TestGuardedNilArguments(t *testing.T) {
	if Guarded(nil, testGuard(1, 0)) != nil {
		t.Error("Guarded(nil, g) should stay nil: not configured")
	}
	p := NewSerpAPI(testKey, Options{})
	if Guarded(p, nil) != Provider(p) {
		t.Error("Guarded(p, nil) should be p")
	}
}
