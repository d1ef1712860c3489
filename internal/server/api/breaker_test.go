package api_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"ragd/internal/testkit/stack"
	"ragd/internal/testkit/testenv"
)

func breakerState(t *testing.T, s *stack.Stack, dep string) string {
	t.Helper()
	h := s.Do(t, http.MethodGet, "/health", nil)
	breakers, _ := h.JSON["breakers"].(map[string]any)
	state, _ := breakers[dep].(string)
	return state
}

// Stopping the test's own Weaviate opens the weaviate breaker after the
// configured number of failures; calls then fail fast with 503 and
// Retry-After. Starting it again closes the breaker and answers return.
func TestWeaviateBreakerOpensAndCloses(t *testing.T) {
	t.Parallel()
	w, s := stopTestStack(t)
	docID := indexText(t, s, "default", "Kelp forests grow along cold, nutrient-rich coasts.")
	if r := searchBody(t, s, map[string]any{"query": "kelp forests"}); len(r) != 1 {
		t.Fatalf("before the stop: %v", r)
	}
	if st := breakerState(t, s, "weaviate"); st != "closed" {
		t.Fatalf("breaker %q before the stop", st)
	}

	w.Stop(t)
	opened := false
	for i := 0; i < 6; i++ {
		resp := s.Do(t, http.MethodPost, "/tools/rag_search", map[string]any{"query": "kelp forests"})
		if resp.Status != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" {
			t.Fatalf("search with Weaviate down: %d %s (Retry-After %q)", resp.Status, resp.Body, resp.Header.Get("Retry-After"))
		}
		if strings.Contains(str(resp.JSON, "detail"), "circuit breaker is open") {
			opened = true
			break
		}
		if !strings.Contains(str(resp.JSON, "detail"), "weaviate") {
			t.Fatalf("503 detail should name weaviate: %s", resp.Body)
		}
	}
	if !opened || breakerState(t, s, "weaviate") != "open" {
		t.Fatalf("breaker did not open (state %s)", breakerState(t, s, "weaviate"))
	}
	if h := s.Do(t, http.MethodGet, "/health", nil); h.Status != 503 {
		t.Errorf("health with Weaviate down: %d %s", h.Status, h.Body)
	}
	// A delete that cannot reach Weaviate changes nothing, so it can be
	// tried again once Weaviate is back.
	if d := s.Do(t, http.MethodDelete, "/documents/"+docID, nil); d.Status != http.StatusServiceUnavailable {
		t.Fatalf("delete with Weaviate down: %d %s", d.Status, d.Body)
	}
	if d := s.Do(t, http.MethodGet, "/documents/"+docID, nil); d.Status != http.StatusOK {
		t.Fatalf("the document is gone after a failed delete: %d %s", d.Status, d.Body)
	}

	w.Start(t)
	time.Sleep(testBreakerOpenFor)
	deadline := time.Now().Add(30 * time.Second)
	for {
		resp := s.Do(t, http.MethodPost, "/tools/rag_search", map[string]any{"query": "kelp forests"})
		if resp.Status == 200 && num(resp.JSON, "count") == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after restart: %d %s", resp.Status, resp.Body)
		}
		time.Sleep(500 * time.Millisecond)
	}
	if st := breakerState(t, s, "weaviate"); st != "closed" {
		t.Fatalf("breaker %q after recovery", st)
	}
	d := s.Do(t, http.MethodDelete, "/documents/"+docID, nil)
	if d.Status != http.StatusOK || num(d.JSON, "chunks_deleted") != 1 {
		t.Fatalf("delete retried after recovery: %d %s", d.Status, d.Body)
	}
	if n := s.ChunkCount(t, "default", docID); n != 0 {
		t.Fatalf("%d chunks left after the delete", n)
	}
}

// testBreakerOpenFor is how long stopTestStack's breaker stays open.
const testBreakerOpenFor = 3 * time.Second

// stopTestStack is a stack on a Weaviate of the test's own, which it may
// stop and start: a 2 s Weaviate timeout, one retry, a breaker that opens
// after 3 failures for 3 s, no cache.
func stopTestStack(t *testing.T) (*testenv.Weaviate, *stack.Stack) {
	t.Helper()
	w := testenv.StartWeaviate(t)
	cfg := stack.Config(t)
	cfg.Weaviate.URL, cfg.Weaviate.GRPCAddr = w.URL, w.GRPCAddr
	cfg.Weaviate.Timeout = 2 * time.Second
	cfg.Resilience.MaxRetries = 1
	cfg.Resilience.CircuitFailThreshold = 3
	cfg.Resilience.CircuitOpenFor = testBreakerOpenFor
	cfg.Cache.Enabled = false
	return w, stack.Start(t, cfg, true)
}
