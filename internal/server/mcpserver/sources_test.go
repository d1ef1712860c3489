package mcpserver_test

import (
	"fmt"
	"testing"
	"time"

	"ragd"
	"ragd/internal/testkit/gitserver"
	"ragd/internal/testkit/stack"
)

// An agent lists the sources and syncs one over MCP: the dry run answers
// the plan, the sync a job that core_job_status follows to the end.
func TestListAndSyncSourcesOverMCP(t *testing.T) {
	t.Parallel()
	repo := gitserver.NewRepo(t, "adr.git")
	repo.Write("0001-use-redis.md", "# Use Redis\n\nWe keep jobs in Redis.\n")
	repo.Write("0002-use-weaviate.md", "# Use Weaviate\n\nWe keep chunks in Weaviate.\n")
	repo.Commit("two decisions")
	url, _ := gitserver.Daemon(t, repo)
	cfg := stack.Config(t)
	cfg.Ingest.AllowPrivateURLs = true
	s := stack.Start(t, cfg, true)
	r := s.Do(t, "POST", "/sources", map[string]any{"kind": "git", "url": url})
	if r.Status != 201 {
		t.Fatalf("POST /sources: %d %s", r.Status, r.Body)
	}
	cs := connectHTTP(t, s, "2025-11-25", nil)
	res, out := call(t, cs, "core_list_sources", nil)
	list, _ := out["sources"].([]any)
	if res.IsError || len(list) != 1 {
		t.Fatalf("core_list_sources: %v %s", out, text(res))
	}
	id := list[0].(map[string]any)["source_id"].(string)
	res, out = call(t, cs, "core_sync_source", map[string]any{"source_id": id, "dry_run": true})
	plan, _ := out["plan"].(map[string]any)
	if res.IsError || out["status"] != "planned" || fmt.Sprint(plan["added"]) != "[0001-use-redis.md 0002-use-weaviate.md]" {
		t.Fatalf("dry run: %v %s", out, text(res))
	}
	res, out = call(t, cs, "core_sync_source", map[string]any{"source_id": id})
	if res.IsError || out["job_id"] == "" {
		t.Fatalf("core_sync_source: %v %s", out, text(res))
	}
	job := s.WaitJob(t, out["job_id"].(string), 60*time.Second)
	if job.Status != ragd.JobCompleted || job.Progress.Done != 2 {
		t.Fatalf("the sync's job: %+v", job)
	}
	res, _ = call(t, cs, "core_sync_source", map[string]any{"source_id": "src_0000000000000000"})
	if !res.IsError {
		t.Fatal("a source that does not exist was synced")
	}
}
