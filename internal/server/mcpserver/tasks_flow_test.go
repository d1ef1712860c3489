package mcpserver_test

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"ragd/internal/platform/config"
	"ragd/internal/testkit/stack"
)

// taskDocs writes a directory of two Markdown files and a broken PDF
// beside it, and returns the root, the directory and the PDF.
func taskDocs(t *testing.T) (root, dir, broken string) {
	root = t.TempDir()
	dir = filepath.Join(root, "manuals")
	writeDoc(t, filepath.Join(dir, "ferry.md"), "# Ferry\n\nThe ferry leaves the harbour at high tide and returns at dusk.\n")
	writeDoc(t, filepath.Join(dir, "lighthouse.md"), "# Lighthouse\n\nThe keeper logs every passing ship in the harbour ledger.\n")
	broken = filepath.Join(root, "broken", "broken.pdf")
	writeDoc(t, broken, "this is not a PDF at all\n")
	return root, dir, broken
}

// TestTasksLegacy follows 2025-11-25 tasks from the capability to the
// result: ragd advertises tasks and the two ingest tools' optional task
// support; a directory's task is its job (GET /jobs/{id}), reports
// jobs.retention as its ttl whatever ttl was asked, settles completed,
// and its result is the directory's result; tasks/list holds it; a
// broken file's task fails in GET /jobs/{id}'s words; a finished task is
// not cancelled; a call without task answers as before.
func TestTasksLegacy(t *testing.T) {
	t.Parallel()
	root, dir, broken := taskDocs(t)
	cfg := stack.Config(t, root)
	cfg.Jobs.Retention = 2 * time.Hour
	s := stack.Start(t, cfg, true)
	k := &tasker{t: t, url: s.URL}

	init := k.send("initialize", "", map[string]any{"protocolVersion": "2025-11-25", "capabilities": map[string]any{},
		"clientInfo": map[string]any{"name": "ragd-tasks-test", "version": "1"}})
	caps, _ := init.Result["capabilities"].(map[string]any)
	want := map[string]any{"list": map[string]any{}, "cancel": map[string]any{}, "requests": map[string]any{"tools": map[string]any{"call": map[string]any{}}}}
	if !reflect.DeepEqual(caps["tasks"], want) || caps["tools"] == nil {
		t.Fatalf("initialize capabilities: %s", init.Raw)
	}
	support := map[string]any{}
	tools, _ := k.send("tools/list", "", nil).Result["tools"].([]any)
	for _, raw := range tools {
		tool := raw.(map[string]any)
		support[tool["name"].(string)] = tool["execution"]
	}
	optional := map[string]any{"taskSupport": "optional"}
	if !reflect.DeepEqual(support["core_ingest"], optional) || !reflect.DeepEqual(support["core_ingest_directory"], optional) ||
		support["core_query"] != nil || support["core_job_status"] != nil || len(support) < 10 {
		t.Fatalf("tools' execution: %v", support)
	}

	task := k.created(k.callAsTask("core_ingest_directory", map[string]any{"directory_path": dir, "kb_name": "manuals"}, map[string]any{"ttl": 9e15}))
	id, _ := task["taskId"].(string)
	if task["status"] != "working" || task["ttl"] != fmtMs(2*time.Hour) || task["pollInterval"] != float64(2000) || task["createdAt"] == nil {
		t.Fatalf("created task: %v", task)
	}
	got := k.settle(id)
	if got["status"] != "completed" || !strings.Contains(got["statusMessage"].(string), "2 of 2 files") {
		t.Fatalf("settled: %v", got)
	}
	if st, _ := jobStatus(t, s, "", id); st != "completed" {
		t.Fatalf("GET /jobs/%s: %s", id, st)
	}
	res := k.send("tasks/result", "", map[string]any{"taskId": id})
	out := structured(t, res.Result)
	job := s.Do(t, http.MethodGet, "/jobs/"+id, nil).JSON
	if res.Result["isError"] == true || out["job_id"] != id || out["status"] != "completed" || !reflect.DeepEqual(out["result"], job["result"]) {
		t.Fatalf("tasks/result %s against GET /jobs: %v", res.Raw, job)
	}
	if meta, _ := res.Result["_meta"].(map[string]any); !reflect.DeepEqual(meta["io.modelcontextprotocol/related-task"], map[string]any{"taskId": id}) {
		t.Errorf("tasks/result _meta: %v", res.Result["_meta"])
	}
	ids := listAll(t, k)
	if !ids[id] {
		t.Errorf("tasks/list lacks %s: %v", id, ids)
	}
	fileJobsAreNoTasks(t, s, k, job, ids)
	if a := k.send("tasks/cancel", "", map[string]any{"taskId": id}); a.code() != -32602 || !strings.Contains(a.Error.Message, "terminal") {
		t.Errorf("cancelling a completed task: %s", a.Raw)
	}

	failed := k.settle(k.created(k.callAsTask("core_ingest", map[string]any{"source_uri": broken, "kb_name": "manuals"}, nil))["taskId"].(string))
	fid := failed["taskId"].(string)
	_, why := jobStatus(t, s, "", fid)
	if failed["status"] != "failed" || why == "" || failed["statusMessage"] != why {
		t.Fatalf("failed task %v, GET /jobs says %q", failed, why)
	}
	res = k.send("tasks/result", "", map[string]any{"taskId": fid})
	if out := structured(t, res.Result); res.Result["isError"] != true || out["error"] != why || out["status"] != "failed" {
		t.Fatalf("failed task's result: %s", res.Raw)
	}

	plain := k.send("tools/call", "", map[string]any{"name": "core_ingest", "arguments": map[string]any{
		"source_uri": "The ferry timetable changes in winter.", "source_type": "text", "kb_name": "manuals"}})
	if out := structured(t, plain.Result); plain.Result["task"] != nil || out["job_id"] == "" {
		t.Fatalf("a call without task: %s", plain.Raw)
	}
}

// listAll pages tasks/list to its end and returns the task ids, failing
// on a repeated id or more pages than 1,000 tasks need.
func listAll(t *testing.T, k *tasker) map[string]bool {
	t.Helper()
	ids := map[string]bool{}
	cursor := ""
	for page := 0; ; page++ {
		params := map[string]any{}
		if cursor != "" {
			params["cursor"] = cursor
		}
		a := k.send("tasks/list", "", params)
		tasks, ok := a.Result["tasks"].([]any)
		if a.Error != nil || !ok || len(tasks) > 100 || page > 11 {
			t.Fatalf("tasks/list page %d: %.400s", page, a.Raw)
		}
		for _, raw := range tasks {
			id := raw.(map[string]any)["taskId"].(string)
			if ids[id] {
				t.Fatalf("tasks/list repeats %s", id)
			}
			ids[id] = true
		}
		next, _ := a.Result["nextCursor"].(string)
		if next == "" {
			return ids
		}
		cursor = next
	}
}

// TestTasksCancel cancels a queued directory's task (2025-11-25): it
// answers cancelled, GET /jobs/{id} agrees, its result says cancelled,
// and a second cancel is the spec's error.
func TestTasksCancel(t *testing.T) {
	t.Parallel()
	root, dir, _ := taskDocs(t)
	s := stack.Start(t, stack.Config(t, root), false) // no worker: the job waits
	k := &tasker{t: t, url: s.URL}
	id := k.created(k.callAsTask("core_ingest_directory", map[string]any{"directory_path": dir}, nil))["taskId"].(string)
	if got := k.get(id).Result; got["status"] != "working" || !strings.HasPrefix(got["statusMessage"].(string), "queued") {
		t.Fatalf("queued task: %v", got)
	}
	a := k.send("tasks/cancel", "", map[string]any{"taskId": id})
	if a.Error != nil || a.Result["status"] != "cancelled" || a.Result["taskId"] != id {
		t.Fatalf("tasks/cancel: %s", a.Raw)
	}
	if st, _ := jobStatus(t, s, "", id); st != "cancelled" {
		t.Fatalf("GET /jobs/%s after the cancel: %s", id, st)
	}
	if out := structured(t, k.send("tasks/result", "", map[string]any{"taskId": id}).Result); out["status"] != "cancelled" {
		t.Fatalf("a cancelled task's result: %v", out)
	}
	if a := k.send("tasks/cancel", "", map[string]any{"taskId": id}); a.code() != -32602 || !strings.Contains(a.Error.Message, "already cancelled") {
		t.Fatalf("a second cancel: %s", a.Raw)
	}
}

// TestTasksExtension follows the 2026-07-28 extension: server/discover
// advertises it; a client that declares it gets a task from a directory
// ingest (resultType task, ttlMs, pollIntervalMs), cancels one (an empty
// complete result; GET /jobs agrees; cancelling it again, or a completed
// task, is the same acknowledgement and changes nothing) and polls another
// to completed with the directory's result inline; one that does not
// declare it gets the plain result and -32021 naming the extension in
// data.requiredCapabilities from tasks/get, tasks/cancel and tasks/update;
// tasks/update acknowledges (ragd's tasks never ask for input, so every
// response is ignored); tasks/result and tasks/list are not the
// extension's (-32601).
func TestTasksExtension(t *testing.T) {
	t.Parallel()
	root, dir, broken := taskDocs(t)
	s := stack.Start(t, stack.Config(t, root), false)
	k := &tasker{t: t, url: s.URL, modern: true, declares: true}

	disc := k.send("server/discover", "", nil)
	caps, _ := disc.Result["capabilities"].(map[string]any)
	if ext, _ := caps["extensions"].(map[string]any); !reflect.DeepEqual(ext["io.modelcontextprotocol/tasks"], map[string]any{}) {
		t.Fatalf("server/discover: %s", disc.Raw)
	}
	first := k.created(k.callAsTask("core_ingest_directory", map[string]any{"directory_path": dir, "kb_name": "one"}, nil))
	id := first["taskId"].(string)
	if first["status"] != "working" || first["ttlMs"] != fmtMs(24*time.Hour) || first["pollIntervalMs"] != float64(2000) {
		t.Fatalf("created: %v", first)
	}
	if a := k.send("tasks/cancel", id, map[string]any{"taskId": id}); a.Error != nil || !reflect.DeepEqual(a.Result, map[string]any{"resultType": "complete"}) {
		t.Fatalf("tasks/cancel: %s", a.Raw)
	}
	if st, _ := jobStatus(t, s, "", id); st != "cancelled" || k.settle(id)["status"] != "cancelled" {
		t.Fatalf("GET /jobs/%s after the cancel: %s", id, st)
	}
	// The extension's cancel of an ended task is the same empty
	// acknowledgement: its errors are for unknown ids only.
	if a := k.send("tasks/cancel", id, map[string]any{"taskId": id}); a.Error != nil || a.Status != http.StatusOK ||
		!reflect.DeepEqual(a.Result, map[string]any{"resultType": "complete"}) {
		t.Fatalf("a second cancel: %d %s", a.Status, a.Raw)
	}
	if got := k.get(id).Result; got["status"] != "cancelled" {
		t.Fatalf("after a second cancel: %v", got)
	}

	s.StartWorker(t)
	id = k.created(k.callAsTask("core_ingest_directory", map[string]any{"directory_path": dir, "kb_name": "two"}, nil))["taskId"].(string)
	done := k.settle(id)
	res, _ := done["result"].(map[string]any)
	job := s.Do(t, http.MethodGet, "/jobs/"+id, nil).JSON
	if done["status"] != "completed" || done["resultType"] != "complete" || res["resultType"] != "complete" ||
		!reflect.DeepEqual(structured(t, res)["result"], job["result"]) {
		t.Fatalf("completed: %v against GET /jobs: %v", done, job)
	}
	if a := k.send("tasks/cancel", id, map[string]any{"taskId": id}); a.Error != nil || !reflect.DeepEqual(a.Result, map[string]any{"resultType": "complete"}) ||
		k.get(id).Result["status"] != "completed" {
		t.Fatalf("cancelling a completed task: %d %s", a.Status, a.Raw)
	}
	// A job that failed is a completed task with an error result: the
	// extension keeps failed for JSON-RPC errors.
	bad := k.settle(k.created(k.callAsTask("core_ingest", map[string]any{"source_uri": broken}, nil))["taskId"].(string))
	res, _ = bad["result"].(map[string]any)
	if _, why := jobStatus(t, s, "", bad["taskId"].(string)); bad["status"] != "completed" || res["isError"] != true || structured(t, res)["error"] != why {
		t.Fatalf("a failed job's task: %v", bad)
	}

	if a := k.send("tasks/get", "another-task", map[string]any{"taskId": id}); a.code() != -32602 || !strings.Contains(a.Error.Message, "Mcp-Name") {
		t.Errorf("tasks/get with another Mcp-Name: %d %s", a.Status, a.Raw)
	}
	for _, m := range []string{"tasks/result", "tasks/list"} {
		if a := k.send(m, id, map[string]any{"taskId": id}); a.code() != -32601 || a.Status != http.StatusNotFound {
			t.Errorf("%s: %d %s", m, a.Status, a.Raw)
		}
	}
	// tasks/update: ragd's tasks never ask for input, so no response is
	// outstanding and each is ignored, as the extension asks; the task is
	// unchanged. An unknown task is -32602, inputResponses no object too.
	ack := map[string]any{"resultType": "complete"}
	if a := k.send("tasks/update", id, map[string]any{"taskId": id, "inputResponses": map[string]any{"name": map[string]any{"action": "accept"}}}); a.Error != nil ||
		!reflect.DeepEqual(a.Result, ack) || k.get(id).Result["status"] != "completed" {
		t.Errorf("tasks/update: %d %s", a.Status, a.Raw)
	}
	unknown := "0f0e0d0c-0b0a-4908-8706-050403020100"
	for i, params := range []map[string]any{{"taskId": unknown, "inputResponses": map[string]any{}}, {"taskId": id}, {"taskId": id, "inputResponses": "yes"}} {
		name, _ := params["taskId"].(string)
		if a := k.send("tasks/update", name, params); a.code() != -32602 || a.Status != http.StatusBadRequest {
			t.Errorf("tasks/update #%d: %d %s", i, a.Status, a.Raw)
		}
	}
	if a := (&tasker{t: t, url: s.URL}).send("tasks/update", "", map[string]any{"taskId": id, "inputResponses": map[string]any{}}); a.code() != -32601 {
		t.Errorf("tasks/update in 2025-11-25: %d %s", a.Status, a.Raw)
	}
	plain := &tasker{t: t, url: s.URL, modern: true}
	a := plain.callAsTask("core_ingest", map[string]any{"source_uri": "Winter timetable.", "source_type": "text"}, nil)
	if out := structured(t, a.Result); a.Result["resultType"] != "complete" || out["job_id"] == "" {
		t.Fatalf("a call without the extension: %s", a.Raw)
	}
	// -32021 names the capability to declare (data.requiredCapabilities),
	// as the 2026-07-28 schema's MissingRequiredClientCapabilityError must.
	for _, m := range []string{"tasks/get", "tasks/cancel", "tasks/update"} {
		a := plain.send(m, id, map[string]any{"taskId": id, "inputResponses": map[string]any{}})
		var e struct {
			Error struct {
				Data struct {
					RequiredCapabilities struct {
						Extensions map[string]any `json:"extensions"`
					} `json:"requiredCapabilities"`
				} `json:"data"`
			} `json:"error"`
		}
		_ = json.Unmarshal([]byte(a.Raw), &e)
		if a.code() != -32021 || a.Status != http.StatusBadRequest ||
			!reflect.DeepEqual(e.Error.Data.RequiredCapabilities.Extensions, map[string]any{"io.modelcontextprotocol/tasks": map[string]any{}}) {
			t.Fatalf("%s without the extension: %d %s", m, a.Status, a.Raw)
		}
	}
}

// TestTasksIsolation: a task is its job's, seen only by whom the job is:
// another key's tasks/get, tasks/result and tasks/cancel answer as for an
// unknown id, and its tasks/list leaves the task out — a key of another
// namespace, and a key of the same namespace but other groups (in both
// generations, tasks/update too).
func TestTasksIsolation(t *testing.T) {
	t.Parallel()
	cfg := stack.Config(t)
	cfg.Auth.Mode = "static-token"
	cfg.Auth.Keys = []config.AuthKey{{Name: "all", Token: "tok-all-0123456789", Groups: []string{"*"}},
		{Name: "finance", Token: "tok-fin-0123456789", Namespaces: []string{"finance"}},
		{Name: "hr", Token: "tok-hr-0123456789", Namespaces: []string{"shared"}, Groups: []string{"hr"}},
		{Name: "eng", Token: "tok-eng-0123456789", Namespaces: []string{"shared"}, Groups: []string{"eng"}}}
	s := stack.Start(t, cfg, false)
	all := &tasker{t: t, url: s.URL, token: "tok-all-0123456789"}
	fin := &tasker{t: t, url: s.URL, token: "tok-fin-0123456789"}
	hr := all.created(all.callAsTask("core_ingest", map[string]any{"source_uri": "Payroll runs on the 25th.", "source_type": "text", "kb_name": "hr"}, nil))["taskId"].(string)
	own := fin.created(fin.callAsTask("core_ingest", map[string]any{"source_uri": "Budgets close in March.", "source_type": "text", "kb_name": "finance"}, nil))["taskId"].(string)
	unknown := "0f0e0d0c-0b0a-4908-8706-050403020100"
	for _, m := range []string{"tasks/get", "tasks/result", "tasks/cancel"} {
		theirs, none := fin.send(m, "", map[string]any{"taskId": hr}), fin.send(m, "", map[string]any{"taskId": unknown})
		if theirs.code() != -32602 || strings.ReplaceAll(theirs.Raw, hr, "ID") != strings.ReplaceAll(none.Raw, unknown, "ID") {
			t.Errorf("finance key %s: hr's task answers %s, an unknown one %s", m, theirs.Raw, none.Raw)
		}
	}
	if ids := listAll(t, fin); ids[hr] || !ids[own] || len(ids) != 1 {
		t.Errorf("finance key's tasks/list: %v (hr's %s, its own %s)", ids, hr, own)
	}
	if ids := listAll(t, all); !ids[hr] {
		t.Errorf("all key's tasks/list lacks its own %s: %v", hr, ids)
	}
	if a := all.send("tasks/cancel", "", map[string]any{"taskId": hr}); a.Result["status"] != "cancelled" {
		t.Errorf("the owner's cancel: %s", a.Raw)
	}

	// In one namespace, a key of other groups may not see the task of a
	// key that saw what it may not (ragd.Audience.SeesJobsOf): the same
	// answers as for an unknown id, in both generations, and no listing.
	hrKey := &tasker{t: t, url: s.URL, token: "tok-hr-0123456789"}
	engKey := &tasker{t: t, url: s.URL, token: "tok-eng-0123456789"}
	theirs := hrKey.created(hrKey.callAsTask("core_ingest", map[string]any{"source_uri": "Salaries are reviewed in May.", "source_type": "text", "kb_name": "shared"}, nil))["taskId"].(string)
	modern := &tasker{t: t, url: s.URL, token: "tok-eng-0123456789", modern: true, declares: true}
	for _, k := range []*tasker{engKey, modern} {
		for _, m := range []string{"tasks/get", "tasks/result", "tasks/cancel", "tasks/update"} {
			if m == map[bool]string{false: "tasks/update", true: "tasks/result"}[k.modern] {
				continue // tasks/result is 2025-11-25's, tasks/update the extension's
			}
			params := func(id string) map[string]any {
				return map[string]any{"taskId": id, "inputResponses": map[string]any{}}
			}
			got, none := k.send(m, theirs, params(theirs)), k.send(m, unknown, params(unknown))
			if got.code() != -32602 || strings.ReplaceAll(got.Raw, theirs, "ID") != strings.ReplaceAll(none.Raw, unknown, "ID") {
				t.Errorf("eng key %s (modern %v): hr's task answers %s, an unknown one %s", m, k.modern, got.Raw, none.Raw)
			}
		}
	}
	if ids := listAll(t, engKey); ids[theirs] {
		t.Errorf("eng key's tasks/list holds hr's task %s: %v", theirs, ids)
	}
	if got := hrKey.get(theirs).Result; got["taskId"] != theirs {
		t.Errorf("hr key's own task: %v", got)
	}
}

// TestTasksHostileInput: malformed and unknown task ids, a task field on
// a tool without task support or of the wrong shape, a huge ttl, bad
// cursors — each the spec's error or a bounded answer; 1,000 tasks list
// in pages of at most 100, each once.
func TestTasksHostileInput(t *testing.T) {
	t.Parallel()
	s := stack.Start(t, stack.Config(t), false)
	k := &tasker{t: t, url: s.URL}
	for _, id := range []any{42, "", nil, map[string]any{"a": 1}, strings.Repeat("x", 5000), "0f0e0d0c-0b0a-4908-8706-050403020100", "../../etc/passwd"} {
		for _, m := range []string{"tasks/get", "tasks/result", "tasks/cancel"} {
			if a := k.send(m, "", map[string]any{"taskId": id}); a.code() != -32602 || len(a.Raw) > 1000 {
				t.Errorf("%s taskId %.40v: %.300s", m, id, a.Raw)
			}
		}
	}
	for params, code := range map[string]string{`[1]`: "-32602", `"x"`: "-32602", `{"taskId":`: "-32700", `{"taskId":["a"]}`: "-32602"} {
		req, _ := http.NewRequest(http.MethodPost, s.URL+"/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tasks/get","params":`+params+`}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if !strings.Contains(string(body), `"code":`+code) {
			t.Errorf("tasks/get with params %s: %d %s, want %s", params, resp.StatusCode, body, code)
		}
	}
	for _, tool := range []string{"core_query", "core_stats", "core_job_status", "no_such_tool"} {
		if a := k.callAsTask(tool, map[string]any{"query": "x"}, nil); a.code() != -32601 {
			t.Errorf("task-augmented %s: %s", tool, a.Raw)
		}
	}
	if a := k.send("tools/call", "", map[string]any{"name": "core_ingest", "task": "soon",
		"arguments": map[string]any{"source_uri": "x", "source_type": "text"}}); a.code() != -32602 {
		t.Errorf("task of the wrong shape: %s", a.Raw)
	}
	huge := k.created(k.callAsTask("core_ingest", map[string]any{"source_uri": "Huge ttl.", "source_type": "text"}, map[string]any{"ttl": 1e300}))
	if huge["ttl"] != fmtMs(24*time.Hour) {
		t.Errorf("a huge ttl is reported as %v, not jobs.retention", huge["ttl"])
	}
	for _, c := range []string{"garbage", base64.RawURLEncoding.EncodeToString([]byte("jobs:-1")),
		base64.RawURLEncoding.EncodeToString([]byte("jobs:99999999999")), strings.Repeat("A", 10000)} {
		if a := k.send("tasks/list", "", map[string]any{"cursor": c}); a.code() != -32602 {
			t.Errorf("cursor %.20q: %.300s", c, a.Raw)
		}
	}

	want := map[string]bool{huge["taskId"].(string): true}
	for i := range 999 {
		task := k.created(k.callAsTask("core_ingest", map[string]any{"source_type": "text", "kb_name": "bulk",
			"source_uri": fmt.Sprintf("Bulk note %d about the harbour.", i)}, nil))
		want[task["taskId"].(string)] = true
	}
	if got := listAll(t, k); !reflect.DeepEqual(got, want) {
		t.Fatalf("tasks/list over 1,000 tasks: %d listed, want %d", len(got), len(want))
	}
}

// TestTasksAcrossReplicas: two API replicas on one Redis; a task created
// through one is read, cancelled and its result taken through the other,
// and both list it; a 2026-07-28 task created through one completes, its
// result inline, in the other's tasks/get.
func TestTasksAcrossReplicas(t *testing.T) {
	t.Parallel()
	root, dir, _ := taskDocs(t)
	cfg := stack.Config(t, root)
	a, b := stack.Start(t, cfg, false), stack.Start(t, cfg, false)
	ka, kb := &tasker{t: t, url: a.URL}, &tasker{t: t, url: b.URL}
	doomed := ka.created(ka.callAsTask("core_ingest_directory", map[string]any{"directory_path": dir, "kb_name": "one"}, nil))["taskId"].(string)
	kept := ka.created(ka.callAsTask("core_ingest_directory", map[string]any{"directory_path": dir, "kb_name": "two"}, nil))["taskId"].(string)
	if got := kb.get(doomed).Result; got["status"] != "working" {
		t.Fatalf("replica b reads a's task: %v", got)
	}
	if r := kb.send("tasks/cancel", "", map[string]any{"taskId": doomed}); r.Result["status"] != "cancelled" {
		t.Fatalf("replica b cancels a's task: %s", r.Raw)
	}
	if got := ka.get(doomed).Result; got["status"] != "cancelled" {
		t.Fatalf("replica a after b's cancel: %v", got)
	}
	b.StartWorker(t)
	if got := kb.settle(kept); got["status"] != "completed" {
		t.Fatalf("replica b settles a's task: %v", got)
	}
	res := kb.send("tasks/result", "", map[string]any{"taskId": kept})
	if out := structured(t, res.Result); out["status"] != "completed" || out["job_id"] != kept {
		t.Fatalf("replica b's result of a's task: %s", res.Raw)
	}
	// The 2026-07-28 extension likewise: created on a, its result inline
	// in b's tasks/get.
	ma, mb := &tasker{t: t, url: a.URL, modern: true, declares: true}, &tasker{t: t, url: b.URL, modern: true, declares: true}
	modern := ma.created(ma.callAsTask("core_ingest_directory", map[string]any{"directory_path": dir, "kb_name": "three"}, nil))["taskId"].(string)
	if got := mb.settle(modern); got["status"] != "completed" || structured(t, got["result"].(map[string]any))["job_id"] != modern {
		t.Fatalf("replica b settles a's 2026-07-28 task: %v", got)
	}
	for _, k := range []*tasker{ka, kb} {
		if ids := listAll(t, k); !ids[doomed] || !ids[kept] {
			t.Errorf("%s lists %v", k.url, ids)
		}
	}
}

// TestTasksWithoutJob: a profile tool built on core_ingest runs as a task
// in its own namespace; a task-augmented call that has no job to follow —
// content already indexed, a dry run, bad input — answers the tool's
// result at once, as the plain call does.
func TestTasksWithoutJob(t *testing.T) {
	t.Parallel()
	root, dir, _ := taskDocs(t)
	cfg := stack.Config(t, root)
	cfg.Plugins.DefaultNamespace = "finance"
	cfg.Plugins.Tools = []config.PluginTool{{Namespace: "finance", Name: "ingest", Base: "core_ingest"}}
	s := stack.Start(t, cfg, true)
	k := &tasker{t: t, url: s.URL}
	args := map[string]any{"source_uri": "Budgets close in March.", "source_type": "text"}
	done := k.settle(k.created(k.callAsTask("finance_ingest", args, nil))["taskId"].(string))
	if job := s.Do(t, http.MethodGet, "/jobs/"+done["taskId"].(string), nil).JSON; done["status"] != "completed" || job["kb_name"] != "finance" {
		t.Fatalf("the profile tool's task %v, its job %v", done, job)
	}
	for name, c := range map[string]struct {
		tool  string
		args  map[string]any
		check func(out map[string]any, isError bool) bool
	}{
		"already indexed": {"finance_ingest", args, func(out map[string]any, isError bool) bool { return !isError && out["dedup_hit"] == true }},
		"dry run": {"core_ingest_directory", map[string]any{"directory_path": dir, "sync": true, "dry_run": true},
			func(out map[string]any, isError bool) bool { return !isError && out["status"] == "planned" }},
		"bad input": {"core_ingest", map[string]any{"source_uri": filepath.Join(root, "..", "outside.md")},
			func(_ map[string]any, isError bool) bool { return isError }},
	} {
		a := k.callAsTask(c.tool, c.args, nil)
		out, _ := a.Result["structuredContent"].(map[string]any)
		if a.Error != nil || a.Result["task"] != nil || !c.check(out, a.Result["isError"] == true) {
			t.Errorf("%s as a task: %s", name, a.Raw)
		}
	}
}

// fileJobsAreNoTasks checks that a directory's file jobs, which tasks/list
// does not list (ids), are not tasks: tasks/get, tasks/result and
// tasks/cancel answer as for an unknown id, while GET /jobs reads them.
func fileJobsAreNoTasks(t *testing.T, s *stack.Stack, k *tasker, dir map[string]any, ids map[string]bool) {
	t.Helper()
	children, _ := dir["children"].([]any)
	if len(children) == 0 {
		t.Fatalf("the directory's job has no file jobs: %v", dir)
	}
	child := children[0].(map[string]any)["job_id"].(string)
	if st, _ := jobStatus(t, s, "", child); st != "completed" || ids[child] {
		t.Fatalf("file job %s: GET /jobs says %q, listed as a task: %v", child, st, ids[child])
	}
	for _, method := range []string{"tasks/get", "tasks/result", "tasks/cancel"} {
		if a := k.send(method, "", map[string]any{"taskId": child}); a.code() != -32602 || !strings.Contains(a.Error.Message, "Task not found") {
			t.Errorf("%s of a file job: %s", method, a.Raw)
		}
	}
}
