package api_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"ragd/internal/testkit/stack"
	"ragd/internal/testkit/testenv"
)

// Every key ragd writes lives under redis.key_prefix: an ingest, a search
// (cached), a job listing, a cancel and a stats call with a non-default
// prefix leave no key of this stack outside it. Asynq's own keys are named
// by the queue (asynq:{queue}:…) and are Asynq's. And every script,
// transaction and WATCH on the way keeps to one hash slot, as a Redis
// Cluster requires.
func TestKeysStayUnderThePrefix(t *testing.T) {
	t.Parallel()
	cfg := stack.Config(t)
	s := stack.Start(t, cfg, false)
	slots := testenv.NewSlotCheck(t)
	s.Redis.AddHook(slots)
	queued := s.Do(t, http.MethodPost, "/tools/rag_index", map[string]any{"text": "Puffins nest in burrows.", "kb_name": "birds"})
	if r := s.Do(t, http.MethodPost, "/jobs/"+str(queued.JSON, "job_id")+"/cancel", nil); r.Status != 200 {
		t.Fatalf("cancel: %d %s", r.Status, r.Body)
	}
	w := s.NewWorker()
	if err := w.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.Shutdown)
	r := s.Do(t, http.MethodPost, "/tools/rag_index", map[string]any{"text": "Gannets dive from thirty metres.", "kb_name": "birds", "wait": true})
	if r.Status != 200 {
		t.Fatalf("index: %d %s", r.Status, r.Body)
	}
	for _, path := range []string{"/jobs", "/tools/rag_stats", "/jobs?status=cancelled", "/documents?kb_name=birds"} {
		if r := s.Do(t, http.MethodGet, path, nil); r.Status != 200 {
			t.Fatalf("%s: %d %s", path, r.Status, r.Body)
		}
	}
	for range 2 { // the second is a cache hit
		if r := s.Do(t, http.MethodPost, "/tools/rag_search", map[string]any{"query": "gannets", "kb_name": "birds"}); r.Status != 200 {
			t.Fatalf("search: %d %s", r.Status, r.Body)
		}
	}
	name := strings.TrimPrefix(cfg.Redis.KeyPrefix, "test:")
	asynqKeys := "asynq:{" + cfg.Worker.Queue + "}:"
	var outside []string
	iter := s.Redis.Scan(context.Background(), 0, "*"+name+"*", 1000).Iterator()
	for iter.Next(context.Background()) {
		k := iter.Val()
		if !strings.HasPrefix(k, cfg.Redis.KeyPrefix+":") && !strings.HasPrefix(k, asynqKeys) {
			outside = append(outside, k)
		}
	}
	if err := iter.Err(); err != nil {
		t.Fatal(err)
	}
	if len(outside) > 0 {
		t.Fatalf("keys outside %s: %v", cfg.Redis.KeyPrefix, outside)
	}
	if r := s.Do(t, http.MethodDelete, "/documents/"+str(r.JSON, "document_id")+"?kb_name=birds", nil); r.Status != 200 {
		t.Fatalf("delete: %d %s", r.Status, r.Body)
	}
	slots.Check(t, "script", "transaction", "watch")
}
