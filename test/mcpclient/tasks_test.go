package mcpclient_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"testing"

	"ragd/internal/platform/config"
	"ragd/internal/testkit/stack"
)

// TestTasksRequester drives ragd's MCP Tasks with the official requester,
// @modelcontextprotocol/ext-tasks (pinned in package.json) over the
// TypeScript SDK client, against ragd run as its own process (`ragd serve
// --worker`), in both protocol generations (tasks.mjs): a directory
// ingested with preference "require" is task-backed, its statuses
// progress and it settles completed with the directory's result, which
// GET /jobs/{id} agrees with; tasks/list holds it (2025-11-25: the
// extension has no list); a second directory's task is cancelled through
// the library once its statuses show files done, and GET /jobs/{id} says
// cancelled: some files indexed, the others cancelled unread. Both tasks' wire exchanges are logged
// (steps "wire" and "wire_cancel").
func TestTasksRequester(t *testing.T) {
	_, dir := node(t)
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "@modelcontextprotocol", "ext-tasks", "package.json")); err != nil {
		t.Fatalf("@modelcontextprotocol/ext-tasks is missing: cd test/mcpclient && npm ci --ignore-scripts --no-audit --no-fund")
	}
	for _, gen := range []string{"legacy", "modern"} {
		t.Run(gen, func(t *testing.T) {
			// One worker slot, so that a directory of many files is still
			// running when the requester cancels it.
			p := stack.StartProcess(t, map[string]string{config.EnvName("worker", "concurrency"): "1",
				config.EnvName("worker", "parse_concurrency"): "1"})
			first := writeFiles(t, filepath.Join(p.Root, "first"), 60, 40)
			// Many files, so that the second directory still runs at the
			// first poll (2 s), some 200 files in.
			const secondFiles = 1000
			second := writeFiles(t, filepath.Join(p.Root, "second"), secondFiles, 1)
			want := []string{"connect", "task_completed", "wire", "task_cancelled", "wire_cancel"}
			if gen == "legacy" {
				want = append(want, "tasks_list")
			}
			steps := runScript(t, "tasks.mjs", map[string]any{"url": p.URL + "/mcp", "generation": gen, "kb_name": "tasks",
				"first_directory": first, "first_files": 60, "second_directory": second}, want...)
			var done, cancelled struct {
				TaskID string `json:"task_id"`
				Result struct {
					Result json.RawMessage `json:"result"`
				} `json:"result"`
				CancelledAt string `json:"cancelled_at"`
			}
			_ = json.Unmarshal(steps["task_completed"], &done)
			_ = json.Unmarshal(steps["task_cancelled"], &cancelled)
			job := p.DoAs(t, "", http.MethodGet, "/jobs/"+done.TaskID, nil)
			if job.Status != http.StatusOK || job.JSON["status"] != "completed" {
				t.Fatalf("GET /jobs/%s: %d %s", done.TaskID, job.Status, job.Body)
			}
			var jobResult, taskResult any
			_ = json.Unmarshal(done.Result.Result, &taskResult)
			raw, _ := json.Marshal(job.JSON["result"])
			_ = json.Unmarshal(raw, &jobResult)
			if fmt.Sprint(taskResult) != fmt.Sprint(jobResult) {
				t.Errorf("the task's result %v, GET /jobs/%s's %v", taskResult, done.TaskID, jobResult)
			}
			// Cancelled running: some files were indexed, the rest cancelled
			// unread.
			job = p.DoAs(t, "", http.MethodGet, "/jobs/"+cancelled.TaskID, nil)
			result, _ := job.JSON["result"].(map[string]any)
			indexed, _ := result["files_indexed"].(float64)
			unread, _ := result["files_cancelled"].(float64)
			if job.JSON["status"] != "cancelled" || indexed == 0 || unread == 0 || indexed+unread != secondFiles {
				t.Fatalf("GET /jobs/%s after the requester cancelled its task (at %q): %d %v %v", cancelled.TaskID, cancelled.CancelledAt,
					job.Status, job.JSON["status"], result)
			}
		})
	}
}

// writeFiles writes n Markdown files of sections sections each into dir
// and returns dir.
func writeFiles(t *testing.T, dir string, n, sections int) string {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for i := range n {
		body := fmt.Sprintf("# Harbour note %d\n\n", i)
		for j := range sections {
			body += fmt.Sprintf("## Berth %d\n\nShip %d berthed at quay %d on day %d and unloaded %d crates of tea, "+
				"%d barrels of oil and %d bales of cotton before the tide turned.\n\n", j, i, j%7, j, i*3+j, j*2, i+j)
		}
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("note%03d.md", i)), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}
