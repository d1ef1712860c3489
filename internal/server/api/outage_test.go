package api_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"ragd"
	"ragd/internal/testkit/stack"
	"ragd/internal/testkit/testenv"
)

// Jobs in flight when the test's own Weaviate stops for longer than its
// breaker's open interval, and than the worker's quick retries, wait the
// outage out: every one completes once Weaviate is back, none is lost.
// Across a 40 s stop (weaviate.timeout 30 s, breaker 30 s), 158 of 200
// files once failed for good with "circuit breaker is open": their
// retries, 1, 2 and 4 s apart, had ended before the breaker let a call
// through. Here the same at a smaller scale: a 2 s timeout, a 3 s
// breaker, a stop of about 12 s.
func TestJobsWaitOutAWeaviateOutage(t *testing.T) {
	t.Parallel()
	w, s := stopTestStack(t)
	indexText(t, s, "outage", "Harbour cranes unload containers from the ships.")

	w.Stop(t)
	stopped := time.Now()
	var ids []string
	for i := 0; i < 20; i++ {
		r := s.Do(t, http.MethodPost, "/tools/rag_index", map[string]any{"kb_name": "outage",
			"text": fmt.Sprintf("Note %d: the tide gauge at pier %d read %d centimetres.", i, i, 100+i)})
		if r.Status != http.StatusAccepted {
			t.Fatalf("enqueue %d with Weaviate down: %d %s", i, r.Status, r.Body)
		}
		ids = append(ids, str(r.JSON, "job_id"))
	}
	time.Sleep(12*time.Second - time.Since(stopped))
	w.Start(t)

	deadline := time.Now().Add(2 * time.Minute)
	for _, id := range ids {
		for {
			r := s.Do(t, http.MethodGet, "/jobs/"+id, nil)
			status := ragd.JobStatus(str(r.JSON, "status"))
			if status == ragd.JobCompleted {
				break
			}
			if status.Terminal() || time.Now().After(deadline) {
				t.Fatalf("job %s after the outage: %s %s (retried %v)", id, status, str(r.JSON, "error"), r.JSON["retried"])
			}
			time.Sleep(200 * time.Millisecond)
		}
	}
	if n := len(documents(t, s, "outage")); n != 21 {
		t.Fatalf("%d documents after the outage, want 21", n)
	}
}

// A write Weaviate refuses as too large (a gRPC message over its
// GRPC_MAX_MESSAGE_SIZE: ResourceExhausted) fails its job at once, without
// retries, and never opens the breaker: searches of the namespace and of
// others go on. 7 chunks of 30 MiB once opened it with their retries, and
// every search of every key answered 503 for 30–60 s.
func TestRefusedWriteFailsItsJobAloneAndKeepsSearchUp(t *testing.T) {
	t.Parallel()
	w := testenv.StartWeaviate(t, "GRPC_MAX_MESSAGE_SIZE=65536")
	cfg := stack.Config(t)
	cfg.Weaviate.URL, cfg.Weaviate.GRPCAddr = w.URL, w.GRPCAddr
	cfg.Resilience.CircuitFailThreshold = 2
	cfg.Cache.Enabled = false
	s := stack.Start(t, cfg, true)
	indexText(t, s, "other", "Kelp forests grow along cold, nutrient-rich coasts.")

	for i := 0; i < 4; i++ {
		word := strings.Repeat(string(rune('a'+i)), 100<<10) // one chunk of 100 KiB
		r := s.Do(t, http.MethodPost, "/tools/rag_index", map[string]any{"kb_name": "big", "text": word, "wait": true})
		if r.Status != http.StatusUnprocessableEntity || !strings.Contains(str(r.JSON, "detail"), "too large") {
			t.Fatalf("index %d of a chunk over Weaviate's message size: %d %.300s, want 422 saying too large", i, r.Status, r.Body)
		}
	}
	if st := breakerState(t, s, "weaviate"); st != "closed" {
		t.Fatalf("breaker %s after 4 refused writes", st)
	}
	if r := searchBody(t, s, map[string]any{"query": "kelp forests", "kb_name": "other"}); len(r) != 1 {
		t.Fatalf("search after the refused writes: %v", r)
	}
}
