package mcpserver_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"

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
	syncAsTask(t, s, repo, id)
	res, _ = call(t, cs, "core_sync_source", map[string]any{"source_id": "src_0000000000000000"})
	if !res.IsError {
		t.Fatal("a source that does not exist was synced")
	}
}

// syncAsTask syncs the source as a 2025-11-25 task after a commit adding
// a file: core_sync_source declares optional task support, the task is
// the sync's job, its status message counts the files, and its result is
// the job's result as GET /jobs/{id} gives it.
func syncAsTask(t *testing.T, s *stack.Stack, repo *gitserver.Repo, source string) {
	t.Helper()
	repo.Write("0003-use-asynq.md", "# Use Asynq\n\nWe run jobs with Asynq.\n")
	repo.Commit("a third decision")
	k := &tasker{t: t, url: s.URL}
	k.send("initialize", "", map[string]any{"protocolVersion": "2025-11-25", "capabilities": map[string]any{},
		"clientInfo": map[string]any{"name": "ragd-sources-test", "version": "1"}})
	var schema *jsonschema.Schema
	tools, _ := k.send("tools/list", "", nil).Result["tools"].([]any)
	for _, raw := range tools {
		tool := raw.(map[string]any)
		if tool["name"] != "core_sync_source" {
			continue
		}
		if !reflect.DeepEqual(tool["execution"], map[string]any{"taskSupport": "optional"}) {
			t.Fatalf("core_sync_source's execution: %v", tool["execution"])
		}
		b, _ := json.Marshal(tool["outputSchema"])
		if err := json.Unmarshal(b, &schema); err != nil {
			t.Fatal(err)
		}
	}
	id, _ := k.created(k.callAsTask("core_sync_source", map[string]any{"source_id": source}, nil))["taskId"].(string)
	got := k.settle(id)
	if got["status"] != "completed" || !strings.Contains(fmt.Sprint(got["statusMessage"]), "1 of 1 files") {
		t.Fatalf("the sync's task: %v", got)
	}
	res := k.send("tasks/result", "", map[string]any{"taskId": id})
	out := structured(t, res.Result)
	job := s.Do(t, http.MethodGet, "/jobs/"+id, nil).JSON
	if res.Result["isError"] == true || out["job_id"] != id || !reflect.DeepEqual(out["result"], job["result"]) {
		t.Fatalf("tasks/result %s against GET /jobs/%s: %v", res.Raw, id, job)
	}
	resolved, err := schema.Resolve(nil)
	if err != nil {
		t.Fatalf("core_sync_source's output schema: %v", err)
	}
	if err := resolved.Validate(out); err != nil {
		t.Fatalf("the task's result is not core_sync_source's output: %v\n%s", err, res.Raw)
	}
}
