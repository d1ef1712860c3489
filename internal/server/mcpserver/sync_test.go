package mcpserver_test

import (
	"os"
	"path/filepath"
	"testing"

	"ragd/internal/testkit/stack"
)

// core_ingest_directory takes the same sync request as REST: a dry run
// answers with the plan and changes nothing; the sync then does it.
func TestIngestDirectorySyncOverMCP(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	dir := filepath.Join(root, "d")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "a.md"), []byte("# A\n\nThe weir holds back the millpond."), 0o644); err != nil {
		t.Fatal(err)
	}
	s := stack.Start(t, stack.Config(t, root), true)
	cs := connectHTTP(t, s, "", nil)
	res, out := call(t, cs, "core_ingest_directory", map[string]any{"directory_path": dir, "sync": true, "dry_run": true})
	plan, _ := out["plan"].(map[string]any)
	if res.IsError || out["status"] != "planned" || len(plan["added"].([]any)) != 1 || out["job_id"] != "" {
		t.Fatalf("dry run: %s", text(res))
	}
	res, out = call(t, cs, "core_ingest_directory", map[string]any{"directory_path": dir, "sync": true, "wait": true})
	result, _ := out["result"].(map[string]any)
	if res.IsError || out["status"] != "completed" || result["files_indexed"] != float64(1) {
		t.Fatalf("sync: %s", text(res))
	}
	res, out = call(t, cs, "core_ingest_directory", map[string]any{"directory_path": dir, "sync": true, "dry_run": true})
	plan, _ = out["plan"].(map[string]any)
	if res.IsError || plan["unchanged"] != float64(1) {
		t.Fatalf("dry run after the sync: %s", text(res))
	}
	if res, _ := call(t, cs, "core_ingest_directory", map[string]any{"directory_path": dir, "dry_run": true}); !res.IsError {
		t.Fatal("dry_run without sync: want a tool error")
	}
}
