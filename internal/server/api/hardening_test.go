package api_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"ragd/internal/testkit/stack"
)

// send POSTs (or GETs, with an empty body) raw bytes with the given headers
// (name, value pairs) and returns the status, the "detail" of a JSON body
// and the body.
func send(t *testing.T, s *stack.Stack, method, path, body string, header ...string) (int, json.RawMessage, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, s.URL+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	var out struct{ Detail json.RawMessage }
	_ = json.Unmarshal(b, &out)
	return resp.StatusCode, out.Detail, b
}

// JSON endpoints read only bodies labelled application/json: a browser
// sends text/plain, form and multipart bodies cross-site without a CORS
// preflight, so reading those would let any web page drive ragd.
func TestJSONEndpointsRefuseOtherContentTypes(t *testing.T) {
	t.Parallel()
	s := stack.Start(t, stack.Config(t), false) // no worker: nothing may be enqueued
	bodies := map[string]string{
		"/tools/rag_index":           `{"text":"planted"}`,
		"/tools/rag_index_directory": `{"directory_path":"."}`,
		"/tools/rag_query":           `{"query":"planted"}`,
		"/tools/rag_search":          `{"query":"planted"}`,
		"/":                          `{"jsonrpc":"2.0","id":1,"method":"initialize"}`,
	}
	for path, body := range bodies {
		for _, ct := range []string{"text/plain", "text/plain;charset=UTF-8", "application/x-www-form-urlencoded",
			"multipart/form-data; boundary=x", "", "text/json", "application/jsonl", "application/json-patch+json", "bogus/"} {
			header := []string{}
			if ct != "" {
				header = []string{"Content-Type", ct}
			}
			status, detail, raw := send(t, s, http.MethodPost, path, body, header...)
			var msg string
			if status != http.StatusUnsupportedMediaType || json.Unmarshal(detail, &msg) != nil || !strings.Contains(msg, "application/json") {
				t.Errorf("POST %s Content-Type %q: %d %s, want 415 naming application/json", path, ct, status, raw)
			}
		}
	}
	// A planted request: a page on another local port, text/plain.
	status, _, raw := send(t, s, http.MethodPost, "/tools/rag_index", bodies["/tools/rag_index"],
		"Origin", "http://localhost:3000", "Content-Type", "text/plain")
	if status != http.StatusForbidden {
		t.Errorf("planted ingest from http://localhost:3000: %d %s, want 403", status, raw)
	}
	// Parameters of application/json are fine; an empty body is reported
	// as missing whatever its label.
	if status, _, raw := send(t, s, http.MethodPost, "/tools/rag_search", `{"query":"planted"}`,
		"Content-Type", "application/json; charset=utf-8"); status != http.StatusOK {
		t.Errorf("application/json; charset=utf-8: %d %s", status, raw)
	}
	if status, _, raw := send(t, s, http.MethodPost, "/tools/rag_index", "", "Content-Type", "text/plain"); status != http.StatusUnprocessableEntity {
		t.Errorf("empty text/plain body: %d %s, want 422", status, raw)
	}
	stats, err := s.Queue.Stats(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if stats.Pending != 0 {
		t.Fatalf("%d jobs were enqueued for refused bodies", stats.Pending)
	}
}

// A value of the wrong type is located by the JSON keys the client sent,
// never by the Go structs the server decodes into.
func TestTypeErrorLocIsJSONPath(t *testing.T) {
	t.Parallel()
	s := stack.Start(t, stack.Config(t), false)
	for _, c := range []struct {
		path, body string
		loc        []string
	}{
		{"/tools/rag_index", `{"text":"a","tags":"x"}`, []string{"body", "tags"}},
		{"/tools/rag_index", `{"text":"a","tags":[1]}`, []string{"body", "tags"}},
		{"/tools/rag_index", `{"text":"a","title":5}`, []string{"body", "title"}},
		{"/tools/rag_index", `{"text":"a","wait":"yes"}`, []string{"body", "wait"}},
		{"/tools/rag_index_directory", `{"directory_path":".","tags":{"a":1}}`, []string{"body", "tags"}},
		{"/tools/rag_index_directory", `{"directory_path":".","recursive":"no"}`, []string{"body", "recursive"}},
		{"/tools/rag_index_directory", `{"directory_path":".","wait":1}`, []string{"body", "wait"}},
		{"/tools/rag_query", `{"query":"a","top_k":"5"}`, []string{"body", "top_k"}},
		{"/tools/rag_query", `{"query":"a","scope_filter":{"tags":"x"}}`, []string{"body", "scope_filter", "tags"}},
		{"/tools/rag_query", `{"query":"a","scope_filter":{"kb_names":[true]}}`, []string{"body", "scope_filter", "kb_names"}},
		{"/tools/rag_query", `{"query":"a","scope_filter":7}`, []string{"body", "scope_filter"}},
		{"/tools/rag_query", `{"query":"a","include_sources":"yes"}`, []string{"body", "include_sources"}},
		{"/tools/rag_query", `{"query":"a","stream":1}`, []string{"body", "stream"}},
		{"/tools/rag_search", `{"query":["a"]}`, []string{"body", "query"}},
		{"/tools/rag_search", `{"query":"a","scope_filter":{"document_ids":"d"}}`, []string{"body", "scope_filter", "document_ids"}},
		{"/tools/rag_search", `{"query":"a","scope":"d"}`, []string{"body", "scope"}},
	} {
		status, detail, raw := send(t, s, http.MethodPost, c.path, c.body, "Content-Type", "application/json")
		var fields []struct {
			Loc       []string
			Msg, Type string
		}
		if status != http.StatusUnprocessableEntity || json.Unmarshal(detail, &fields) != nil || len(fields) != 1 {
			t.Errorf("%s %s: %d %s, want one 422 field", c.path, c.body, status, raw)
			continue
		}
		f := fields[0]
		if !reflect.DeepEqual(f.Loc, c.loc) || f.Type != "type_error" ||
			!strings.HasPrefix(f.Msg, strings.Join(c.loc[1:], ".")+" must be ") || strings.Contains(string(raw), "Request") {
			t.Errorf("%s %s: %s, want loc %q and a message about %s", c.path, c.body, raw, c.loc, strings.Join(c.loc[1:], "."))
		}
	}
}

// Invalid /stream parameters and a missing provider are REST errors before
// any stream opens, not an SSE error event in a 200.
func TestStreamParamsAnsweredBeforeStream(t *testing.T) {
	t.Parallel()
	s := stack.Start(t, stack.Config(t), false) // no web-search provider configured
	for query, want := range map[string][]string{
		"":                         {"query", "topic"},
		"?topic=%20":               {"query", "topic"},
		"?topic=go&max_results=x":  {"query", "max_results"},
		"?topic=go&max_results=99": {"query", "max_results"},
	} {
		status, detail, raw := send(t, s, http.MethodGet, "/stream"+query, "")
		var fields []struct {
			Loc       []string
			Msg, Type string
		}
		if status != http.StatusUnprocessableEntity || json.Unmarshal(detail, &fields) != nil || len(fields) != 1 ||
			!reflect.DeepEqual(fields[0].Loc, want) || fields[0].Msg == "" || fields[0].Type == "" {
			t.Errorf("GET /stream%s: %d %s, want 422 at %q", query, status, raw, want)
		}
	}
	status, detail, raw := send(t, s, http.MethodGet, "/stream?topic=go", "")
	if status != http.StatusServiceUnavailable || !strings.Contains(string(detail), "not configured") {
		t.Errorf("GET /stream without a provider: %d %s, want 503", status, raw)
	}
}

// batch is n JSON-RPC calls of method.
func batch(n int, method string) string {
	calls := make([]string, n)
	for i := range calls {
		calls[i] = `{"jsonrpc":"2.0","id":` + strconv.Itoa(i+1) + `,"method":"` + method + `"}`
	}
	return "[" + strings.Join(calls, ",") + "]"
}

// http.max_batch_calls caps batches at /mcp and POST / alike.
func TestBatchCapSharedByMCPAndJSONRPC(t *testing.T) {
	t.Parallel()
	cfg := stack.Config(t)
	cfg.HTTP.MaxBatchCalls = 3
	s := stack.Start(t, cfg, false)
	// Without MCP-Protocol-Version the SDK assumes 2025-03-26, the last
	// revision with batches, and answers them.
	mcpHeaders := []string{"Content-Type", "application/json", "Accept", "application/json, text/event-stream"}
	rpcError := func(raw []byte) (int, string) {
		var e struct {
			Error struct {
				Code    int
				Message string
			}
		}
		_ = json.Unmarshal(raw, &e)
		return e.Error.Code, e.Error.Message
	}
	for _, ep := range []struct {
		path, method string
		header       []string
		refused      int // HTTP status of a refused batch
	}{
		{"/mcp", "tools/list", mcpHeaders, http.StatusBadRequest},
		{"/", "initialize", []string{"Content-Type", "application/json"}, http.StatusOK},
	} {
		status, _, raw := send(t, s, http.MethodPost, ep.path, batch(4, ep.method), ep.header...)
		if code, msg := rpcError(raw); status != ep.refused || code != -32600 || !strings.Contains(msg, "limit of 3") {
			t.Errorf("%s batch of 4: %d %s, want -32600 naming the limit of 3", ep.path, status, raw)
		}
		status, _, raw = send(t, s, http.MethodPost, ep.path, batch(3, ep.method), ep.header...)
		if code, _ := rpcError(raw); status != http.StatusOK || code != 0 || strings.Count(string(raw), `"jsonrpc"`) != 3 {
			t.Errorf("%s batch of 3: %d %s, want three answers", ep.path, status, raw)
		}
	}
}
