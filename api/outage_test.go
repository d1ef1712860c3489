package api_test

import (
	"fmt"
	"net/http"
	"testing"
	"time"

	"ragd"
	"ragd/internal/stack"
	"ragd/internal/testenv"
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
	w := testenv.StartWeaviate(t)
	cfg := stack.Config(t)
	cfg.Weaviate.URL, cfg.Weaviate.GRPCAddr = w.URL, w.GRPCAddr
	cfg.Weaviate.Timeout = 2 * time.Second
	cfg.Resilience.MaxRetries = 1
	cfg.Resilience.CircuitFailThreshold = 3
	cfg.Resilience.CircuitOpenFor = 3 * time.Second
	cfg.Cache.Enabled = false
	s := stack.Start(t, cfg, true)
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
