package mcpserver_test

import (
	"fmt"
	"strings"
	"testing"

	"ragd/internal/testkit/stack"
)

// core_list_jobs lists jobs as GET /jobs does, with their results in its
// output schema; core_cancel_job cancels a queued job once, and refuses a
// second cancel and an unknown job as tool errors.
func TestListAndCancelJobs(t *testing.T) {
	t.Parallel()
	s := stack.Start(t, stack.Config(t), false) // no worker: jobs stay queued until one starts
	cs := connectHTTP(t, s, "", nil)
	var ids []string
	for i := range 3 {
		res, out := call(t, cs, "core_ingest", map[string]any{"source_type": "text", "kb_name": "harbour",
			"source_uri": fmt.Sprintf("Tide table %d for the harbour: high water at %d o'clock.", i, i+6)})
		if res.IsError || out["status"] != "queued" {
			t.Fatalf("core_ingest: %v %s", out, text(res))
		}
		ids = append(ids, out["job_id"].(string))
	}
	for tool, err := range cs.Tools(t.Context(), nil) {
		if err != nil {
			t.Fatal(err)
		}
		switch tool.Name {
		case "core_list_jobs":
			in, out := fmt.Sprint(tool.InputSchema), fmt.Sprint(tool.OutputSchema)
			if !strings.Contains(in, "status") || !strings.Contains(in, "offset") || !strings.Contains(out, "next_offset") ||
				!tool.Annotations.ReadOnlyHint || !tool.Annotations.IdempotentHint {
				t.Errorf("core_list_jobs definition: %s %s %+v", in, out, tool.Annotations)
			}
		case "core_cancel_job":
			if a := tool.Annotations; a.ReadOnlyHint || a.DestructiveHint == nil || !*a.DestructiveHint || !a.IdempotentHint {
				t.Errorf("core_cancel_job annotations: %+v", a)
			}
		}
	}

	res, out := call(t, cs, "core_cancel_job", map[string]any{"job_id": ids[0]})
	if res.IsError || out["job_id"] != ids[0] || out["status"] != "cancelled" {
		t.Fatalf("core_cancel_job: %v %s", out, text(res))
	}
	if res, _ := call(t, cs, "core_cancel_job", map[string]any{"job_id": ids[0]}); !res.IsError || !strings.Contains(text(res), "conflict: job "+ids[0]+" is already cancelled") {
		t.Fatalf("cancel twice: %s", text(res))
	}
	if res, _ := call(t, cs, "core_cancel_job", map[string]any{"job_id": "no-such-job"}); !res.IsError || !strings.Contains(text(res), "not found") {
		t.Fatalf("cancel an unknown job: %s", text(res))
	}
	if res, out := call(t, cs, "core_job_status", map[string]any{"job_id": ids[0]}); res.IsError || out["status"] != "cancelled" {
		t.Fatalf("core_job_status: %v %s", out, text(res))
	}

	res, out = call(t, cs, "core_list_jobs", map[string]any{"kb_name": "harbour", "limit": 2})
	jobs, _ := out["jobs"].([]any)
	if res.IsError || out["total"] != float64(3) || len(jobs) != 2 || out["next_offset"] != float64(2) ||
		jobs[0].(map[string]any)["job_id"] != ids[2] {
		t.Fatalf("core_list_jobs: %v %s", out, text(res))
	}
	res, out = call(t, cs, "core_list_jobs", map[string]any{"status": "cancelled"})
	if jobs, _ := out["jobs"].([]any); res.IsError || len(jobs) != 1 || jobs[0].(map[string]any)["job_id"] != ids[0] {
		t.Fatalf("cancelled jobs: %v %s", out, text(res))
	}
	if res, _ := call(t, cs, "core_list_jobs", map[string]any{"status": "finished"}); !res.IsError || !strings.Contains(text(res), "status must be one of") {
		t.Fatalf("a bad status: %s", text(res))
	}

	// Results are whatever JSON a job reports: a completed job's listing
	// passes the output schema.
	w := s.NewWorker()
	if err := w.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.Shutdown)
	res, out = call(t, cs, "core_ingest", map[string]any{"source_type": "text", "kb_name": "harbour", "wait": true,
		"source_uri": "Low water at noon; the ferry waits for the tide."})
	if res.IsError || out["status"] != "completed" {
		t.Fatalf("core_ingest wait: %v %s", out, text(res))
	}
	res, out = call(t, cs, "core_list_jobs", map[string]any{"status": "completed"})
	jobs, _ = out["jobs"].([]any)
	if res.IsError || len(jobs) == 0 {
		t.Fatalf("completed jobs: %v %s", out, text(res))
	}
	if result, _ := jobs[0].(map[string]any)["result"].(map[string]any); result["chunks_indexed"] != float64(1) {
		t.Fatalf("completed job's result: %v", jobs[0])
	}
}
