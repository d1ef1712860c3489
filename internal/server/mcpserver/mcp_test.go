package mcpserver_test

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"ragd/internal/platform/config"
	"ragd/internal/testkit/stack"
	"ragd/internal/testkit/testenv"
)

func connectHTTP(t *testing.T, s *stack.Stack, version string, onProgress func(*sdk.ProgressNotificationParams)) *sdk.ClientSession {
	t.Helper()
	opts := &sdk.ClientOptions{}
	if onProgress != nil {
		opts.ProgressNotificationHandler = func(_ context.Context, r *sdk.ProgressNotificationClientRequest) { onProgress(r.Params) }
	}
	client := sdk.NewClient(&sdk.Implementation{Name: "ragd-test", Version: "1"}, opts)
	cs, err := client.Connect(t.Context(), &sdk.StreamableClientTransport{Endpoint: s.URL + "/mcp"}, &sdk.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatalf("connect (%s): %v", version, err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

// settled polls core_job_status until job id has ended, failing t after
// within, and returns the last answer.
func settled(t *testing.T, cs *sdk.ClientSession, id string, within time.Duration) (*sdk.CallToolResult, map[string]any) {
	t.Helper()
	for deadline := time.Now().Add(within); ; time.Sleep(100 * time.Millisecond) {
		res, job := call(t, cs, "core_job_status", map[string]any{"job_id": id})
		if res.IsError {
			t.Fatalf("core_job_status: %s", text(res))
		}
		if s := job["status"]; s == "completed" || s == "failed" || s == "cancelled" {
			return res, job
		}
		if time.Now().After(deadline) {
			t.Fatalf("job %s has not ended after %s: %v", id, within, job)
		}
	}
}

func call(t *testing.T, cs *sdk.ClientSession, name string, args map[string]any) (*sdk.CallToolResult, map[string]any) {
	t.Helper()
	res, err := cs.CallTool(t.Context(), &sdk.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: protocol error %v", name, err)
	}
	var out map[string]any
	if res.StructuredContent != nil {
		raw, _ := json.Marshal(res.StructuredContent)
		_ = json.Unmarshal(raw, &out)
	}
	return res, out
}

func text(res *sdk.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

func docsRoot(t *testing.T) string {
	root := t.TempDir()
	for _, f := range []string{"go_mem.html", "godebug.md"} {
		testenv.CopyFile(t, testenv.GorootFile(t, "doc/"+f), filepath.Join(root, f))
	}
	return root
}

var coreTools = []string{"core_ingest", "core_ingest_directory", "core_job_status", "core_query", "core_retrieve_text",
	"core_retrieve_visual", "core_list_documents", "core_delete_document", "core_stats", "core_list_jobs", "core_cancel_job",
	"core_list_sources", "core_sync_source"}

func TestCoreToolsOverHTTP(t *testing.T) {
	t.Parallel()
	root := docsRoot(t)
	s := stack.Start(t, stack.Config(t, root), true)
	for _, version := range []string{"2026-07-28", "2025-11-25"} {
		cs := connectHTTP(t, s, version, nil)
		if got := cs.InitializeResult().ProtocolVersion; got != version {
			t.Fatalf("negotiated %s, want %s", got, version)
		}
		tools := map[string]*sdk.Tool{}
		for tool, err := range cs.Tools(t.Context(), nil) {
			if err != nil {
				t.Fatal(err)
			}
			tools[tool.Name] = tool
		}
		if len(tools) != len(coreTools) {
			t.Fatalf("%s: %d tools listed, want %d", version, len(tools), len(coreTools))
		}
		for _, name := range coreTools {
			tool := tools[name]
			if tool == nil || tool.Description == "" || tool.InputSchema == nil || tool.OutputSchema == nil || tool.Annotations == nil {
				t.Fatalf("%s: tool %s incomplete: %+v", version, name, tool)
			}
		}
		if !tools["core_query"].Annotations.ReadOnlyHint || tools["core_delete_document"].Annotations.DestructiveHint == nil ||
			!*tools["core_delete_document"].Annotations.DestructiveHint || tools["core_ingest"].Annotations.OpenWorldHint == nil ||
			!*tools["core_ingest"].Annotations.OpenWorldHint || !tools["core_job_status"].Annotations.IdempotentHint {
			t.Errorf("%s: annotations wrong", version)
		}
	}

	cs := connectHTTP(t, s, "", nil)
	// Ingest without wait returns before the job runs, with a job to poll.
	res, out := call(t, cs, "core_ingest", map[string]any{"source_uri": filepath.Join(root, "go_mem.html"), "kb_name": "docs"})
	if res.IsError || out["status"] != "queued" || out["job_id"] == "" || out["dedup_hit"] != false {
		t.Fatalf("core_ingest: %v %s", out, text(res))
	}
	jobID := out["job_id"].(string)
	res, job := settled(t, cs, jobID, time.Minute)
	if job["status"] != "completed" {
		t.Fatalf("job: %v", job)
	}
	if p, _ := job["progress"].(map[string]any); p["unit"] != "chunks" || p["done"] != p["total"] {
		t.Fatalf("progress %v", job["progress"])
	}
	// The text mirror carries the same JSON as the structured content.
	var mirror map[string]any
	if err := json.Unmarshal([]byte(text(res)), &mirror); err != nil || mirror["job_id"] != jobID {
		t.Fatalf("text mirror: %v %s", err, text(res))
	}

	res, out = call(t, cs, "core_retrieve_text", map[string]any{"query": "happens before synchronized", "kb_name": "docs", "top_k": 3})
	results, _ := out["results"].([]any)
	if res.IsError || len(results) != 3 {
		t.Fatalf("core_retrieve_text: %v %s", out, text(res))
	}
	first := results[0].(map[string]any)
	meta, _ := first["metadata"].(map[string]any)
	if first["node_id"] == "" || first["text"] == "" || meta["path"] == "" || meta["document_id"] == "" || meta["source_type"] != "html" {
		t.Fatalf("retrieved node: %v", first)
	}

	res, out = call(t, cs, "core_query", map[string]any{"query": "What is a data race?", "kb_name": "docs"})
	if res.IsError || out["route"] != "extractive" || !strings.Contains(out["answer"].(string), "data race") || out["steps"] == nil {
		t.Fatalf("core_query: %v %s", out, text(res))
	}

	res, out = call(t, cs, "core_retrieve_visual", map[string]any{"query": "diagram", "kb_name": "docs"})
	if res.IsError || out["count"] != float64(0) || out["note"] == "" {
		t.Fatalf("core_retrieve_visual: %v %s", out, text(res))
	}

	res, out = call(t, cs, "core_list_documents", map[string]any{"kb_name": "docs"})
	docs, _ := out["documents"].([]any)
	if res.IsError || len(docs) != 1 {
		t.Fatalf("core_list_documents: %v", out)
	}
	docID := docs[0].(map[string]any)["document_id"].(string)

	res, out = call(t, cs, "core_stats", nil)
	if ns, _ := out["namespaces"].(map[string]any); res.IsError || ns["docs"] == nil {
		t.Fatalf("core_stats: %v %s", out, text(res))
	}

	res, out = call(t, cs, "core_delete_document", map[string]any{"document_id": docID})
	if res.IsError || out["status"] != "deleted" {
		t.Fatalf("core_delete_document: %v %s", out, text(res))
	}
}

// Errors are tool results with isError and a readable message; the session
// carries on after them.
func TestToolErrorsKeepTheSession(t *testing.T) {
	t.Parallel()
	root := docsRoot(t)
	s := stack.Start(t, stack.Config(t, root), false)
	cs := connectHTTP(t, s, "", nil)
	cases := []struct {
		tool string
		args map[string]any
		want string
	}{
		{"core_job_status", map[string]any{"job_id": "nope"}, "not found"},
		{"core_retrieve_text", map[string]any{"query": "x", "top_k": 50}, "top_k"},
		{"core_retrieve_text", map[string]any{"query": ""}, "query is required"},
		{"core_query", map[string]any{"query": "x", "mode": "telepathy"}, "mode"},
		{"core_ingest", map[string]any{"source_uri": "/etc/passwd"}, "forbidden"},
		{"core_ingest", map[string]any{"source_uri": "http://127.0.0.1:1/x"}, "private"},
		{"core_ingest", map[string]any{"source_uri": "x", "kb_name": "Bad Name"}, "namespace"},
		{"core_delete_document", map[string]any{"document_id": "nope"}, "not found"},
		{"core_retrieve_text", map[string]any{"top_k": 3}, "query"}, // missing required field: schema validation
		{"core_retrieve_text", map[string]any{"query": 7}, "query"}, // wrong type
	}
	for _, c := range cases {
		res, err := cs.CallTool(t.Context(), &sdk.CallToolParams{Name: c.tool, Arguments: c.args})
		if err != nil {
			t.Fatalf("%s %v: protocol error %v (want a tool error)", c.tool, c.args, err)
		}
		if !res.IsError || !strings.Contains(strings.ToLower(text(res)), c.want) {
			t.Errorf("%s %v: isError %v, %q lacks %q", c.tool, c.args, res.IsError, text(res), c.want)
		}
	}
	// Still usable.
	if res, _ := call(t, cs, "core_stats", nil); res.IsError {
		t.Fatalf("session broken after errors: %s", text(res))
	}
	// Unknown tools and malformed JSON-RPC get protocol errors.
	if _, err := cs.CallTool(t.Context(), &sdk.CallToolParams{Name: "no_such_tool"}); err == nil {
		t.Fatal("unknown tool: want a protocol error")
	}
	for body, code := range map[string]float64{
		`{"jsonrpc":"2.0","id":1,"method":`:              -32700,
		`{"jsonrpc":"1.0","id":1,"method":"tools/list"}`: -32600,
		`[]`:                                  -32600,
		`{"jsonrpc":"2.0","id":1,"method":7}`: -32600,
		`{"jsonrpc":"2.0","id":1,"method":"no/such/method","params":{}}`: -32601,
	} {
		req, _ := http.NewRequest(http.MethodPost, s.URL+"/mcp", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("MCP-Protocol-Version", "2025-11-25")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var rpc struct {
			JSONRPC string
			Error   struct {
				Code    float64
				Message string
			}
		}
		_ = json.NewDecoder(resp.Body).Decode(&rpc)
		resp.Body.Close()
		if resp.StatusCode != http.StatusBadRequest || rpc.JSONRPC != "2.0" || rpc.Error.Code != code || rpc.Error.Message == "" {
			t.Errorf("%s: HTTP %d, error %+v; want code %v", body, resp.StatusCode, rpc.Error, code)
		}
	}
}

// core_ingest with wait sends progress notifications on the call's stream and
// returns the final state; a wait limit returns the job instead of hanging.
func TestIngestWaitWithProgress(t *testing.T) {
	t.Parallel()
	root := docsRoot(t)
	testenv.CopyFile(t, testenv.GorootFile(t, "doc/go_spec.html"), filepath.Join(root, "go_spec.html"))
	cfg := stack.Config(t, root)
	cfg.Embed.BatchSize = 4 // many small steps, each reported
	s := stack.Start(t, cfg, true)
	var mu sync.Mutex
	var progress []*sdk.ProgressNotificationParams
	cs := connectHTTP(t, s, "", func(p *sdk.ProgressNotificationParams) { mu.Lock(); progress = append(progress, p); mu.Unlock() })
	params := &sdk.CallToolParams{Name: "core_ingest", Arguments: map[string]any{"source_uri": filepath.Join(root, "go_spec.html"), "wait": true}}
	params.SetProgressToken("tok-1")
	res, err := cs.CallTool(t.Context(), params)
	if err != nil || res.IsError {
		t.Fatalf("core_ingest wait: %v %s", err, text(res))
	}
	var out map[string]any
	raw, _ := json.Marshal(res.StructuredContent)
	_ = json.Unmarshal(raw, &out)
	result, _ := out["result"].(map[string]any)
	if out["status"] != "completed" || result["chunks_indexed"] == nil || out["document_id"] == "" {
		t.Fatalf("wait result: %v", out)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(progress) < 2 {
		t.Fatalf("got %d progress notifications, want several", len(progress))
	}
	for i, p := range progress {
		if p.ProgressToken != "tok-1" || p.Total == 0 || (i > 0 && p.Progress < progress[i-1].Progress) {
			t.Fatalf("progress %d: %+v", i, p)
		}
	}

	// With no worker and a short limit the call returns the queued job.
	short := cfg
	short.MCP.WaitTimeout = 500 * time.Millisecond
	short.Worker.Queue += "-idle" // no worker serves this queue
	idle := stack.Start(t, short, false)
	cs2 := connectHTTP(t, idle, "", nil)
	res, out = call(t, cs2, "core_ingest", map[string]any{"source_uri": "no worker will take this", "source_type": "text", "wait": true})
	if res.IsError || out["status"] != "queued" || out["job_id"] == "" {
		t.Fatalf("wait limit: %v %s", out, text(res))
	}
}

// Profiles: only the default namespace's tools are listed and callable, and
// they are bound to their namespace.
func TestProfileTools(t *testing.T) {
	t.Parallel()
	cfg := stack.Config(t)
	cfg.Plugins = config.Plugins{DefaultNamespace: "finance", Tools: []config.PluginTool{
		{Namespace: "finance", Name: "query", Base: "core_query", Description: "Answer questions from the finance reports."},
		{Namespace: "finance", Name: "search", Base: "core_retrieve_text", Description: "Find passages in the finance reports."},
		{Namespace: "hr", Name: "query", Base: "core_query", Description: "HR answers."},
	}}
	s := stack.Start(t, cfg, true)
	s.Do(t, http.MethodPost, "/tools/rag_index", map[string]any{"text": "Quarterly revenue grew eleven percent on strong subscription sales.", "kb_name": "finance", "wait": true})
	s.Do(t, http.MethodPost, "/tools/rag_index", map[string]any{"text": "Quarterly revenue of the canteen was tiny.", "kb_name": "default", "wait": true})
	cs := connectHTTP(t, s, "", nil)
	names := map[string]string{}
	for tool, err := range cs.Tools(t.Context(), nil) {
		if err != nil {
			t.Fatal(err)
		}
		names[tool.Name] = tool.Description
	}
	if names["finance_query"] != "Answer questions from the finance reports." || names["finance_search"] == "" {
		t.Fatalf("profile tools missing: %v", names)
	}
	if _, ok := names["hr_query"]; ok {
		t.Fatal("hr_query is listed though hr is not the default namespace")
	}
	if _, err := cs.CallTool(t.Context(), &sdk.CallToolParams{Name: "hr_query", Arguments: map[string]any{"query": "x"}}); err == nil {
		t.Fatal("hr_query is callable")
	}
	_, out := call(t, cs, "finance_search", map[string]any{"query": "quarterly revenue", "kb_name": "default"})
	results, _ := out["results"].([]any)
	if len(results) != 1 || !strings.Contains(results[0].(map[string]any)["text"].(string), "subscription") {
		t.Fatalf("finance_search must stay in finance whatever kb_name says: %v", out)
	}
	// GET /mcp/tools lists the same definitions.
	resp := s.Do(t, http.MethodGet, "/mcp/tools", nil)
	if resp.Status != 200 || !strings.Contains(string(resp.Body), `"finance_query"`) || strings.Contains(string(resp.Body), `"hr_query"`) ||
		!strings.Contains(string(resp.Body), `"inputSchema"`) || int(resp.JSON["count"].(float64)) != len(names) {
		t.Fatalf("/mcp/tools: %d %.300s", resp.Status, resp.Body)
	}
}

func TestProfilesWithSideEffectNamesAreRefused(t *testing.T) {
	t.Parallel()
	for _, bad := range []config.PluginTool{
		{Namespace: "ops", Name: "execute_sql", Base: "core_query"},
		{Namespace: "ops", Name: "send_email", Base: "core_query"},
		{Namespace: "shell", Name: "query", Base: "core_query"},
		{Namespace: "ops", Name: "write_file", Base: "core_ingest"},
		{Namespace: "ops", Name: "http_request", Base: "core_retrieve_text"},
		{Namespace: "ops", Name: "query", Base: "no_such_tool"},
	} {
		cfg := stack.Config(t)
		cfg.Plugins = config.Plugins{DefaultNamespace: "ops", Tools: []config.PluginTool{bad}}
		_, err := appNew(t, cfg)
		if err == nil || !strings.Contains(err.Error(), "plugins") {
			t.Errorf("%+v: want a start-up error from plugins, got %v", bad, err)
		}
	}
}

// `ragd mcp` serves the same tools over stdio; logs stay off stdout.
func TestStdio(t *testing.T) {
	t.Parallel()
	root := docsRoot(t)
	cfg := stack.Config(t, root)
	s := stack.Start(t, cfg, true) // the worker that will run the job
	bin := filepath.Join(t.TempDir(), "ragd")
	if out, err := exec.Command("go", "build", "-o", bin, "ragd/cmd/ragd").CombinedOutput(); err != nil {
		t.Fatalf("build: %v %s", err, out)
	}
	cmd := exec.Command(bin, "mcp")
	cmd.Dir = t.TempDir()
	cmd.Env = append(os.Environ(), "RAGD_REDIS_URL="+cfg.Redis.URL, "RAGD_REDIS_KEY_PREFIX="+cfg.Redis.KeyPrefix,
		"RAGD_WEAVIATE_URL="+cfg.Weaviate.URL, "RAGD_WEAVIATE_GRPC_ADDR="+cfg.Weaviate.GRPCAddr,
		"RAGD_WEAVIATE_COLLECTION="+cfg.Weaviate.Collection, "RAGD_WORKER_QUEUE="+cfg.Worker.Queue,
		"RAGD_EMBED_MODEL_PATH="+cfg.Embed.ModelPath, "RAGD_INGEST_ROOTS="+root, "RAGD_LOG_LEVEL=debug")
	var stderr testenv.Buffer // the process writes while the test reads
	cmd.Stderr = &stderr
	model := &standInModel{} // the client's model, for sampling over stdio
	client := sdk.NewClient(&sdk.Implementation{Name: "ragd-stdio-test", Version: "1"}, &sdk.ClientOptions{CreateMessageHandler: model.handle})
	cs, err := client.Connect(t.Context(), &sdk.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connect over stdio: %v\nstderr: %s", err, stderr.String())
	}
	defer cs.Close()
	n := 0
	for _, err := range cs.Tools(t.Context(), nil) {
		if err != nil {
			t.Fatal(err)
		}
		n++
	}
	if n != len(coreTools) {
		t.Fatalf("%d tools over stdio", n)
	}
	res, out := call(t, cs, "core_ingest", map[string]any{"source_uri": filepath.Join(root, "godebug.md"), "wait": true})
	if res.IsError || out["status"] != "completed" {
		t.Fatalf("core_ingest over stdio: %v %s", out, text(res))
	}
	res, out = call(t, cs, "core_retrieve_text", map[string]any{"query": "GODEBUG settings", "top_k": 2})
	if results, _ := out["results"].([]any); res.IsError || len(results) != 2 {
		t.Fatalf("retrieve over stdio: %v", out)
	}
	res, out = call(t, cs, "core_query", map[string]any{"query": "What do GODEBUG settings control?"})
	if res.IsError || out["route"] != "sampling" || out["answer"] != standIn || len(model.requests()) != 1 {
		t.Fatalf("core_query over stdio should be answered by the client's model: %v %s", out, text(res))
	}
	_ = s
	if !strings.Contains(stderr.String(), "ragd ready") {
		t.Errorf("logs should go to stderr; got %q", stderr.String())
	}
}
