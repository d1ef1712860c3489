package mcp_test

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"ragd/internal/stack"
	"ragd/mcp"
)

// TestFastCallsAnswerAsTheSDK sends the same requests to ragd's MCP handler,
// which answers plain stateless tool calls itself, and to the SDK alone, and
// requires the same status, headers and bytes — for results, tool errors,
// handler errors of every kind and the requests fastCalls must leave to
// the SDK (and checks that it did answer the plain ones itself).
func TestFastCallsAnswerAsTheSDK(t *testing.T) {
	s := stack.Start(t, stack.Config(t), true)
	resp := s.Do(t, http.MethodPost, "/tools/rag_index", map[string]any{"wait": true,
		"text": "The lighthouse keeper logs every passing ship in the harbour ledger, with its flag and tonnage."})
	if resp.Status != http.StatusOK {
		t.Fatalf("index: %d %s", resp.Status, resp.Body)
	}
	fast, sdkOnly := s.MCP.HTTPHandler(), mcp.SDKOnlyHandler(s.MCP)
	call := func(name, args string) string {
		return `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"` + name + `","arguments":` + args + `}}`
	}
	stdHeaders := map[string]string{"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
		"MCP-Protocol-Version": "2025-11-25"}
	cases := []struct {
		name, body string
		headers    map[string]string
		fast       bool // fastCalls must answer it itself
	}{
		{"retrieve", call("core_retrieve_text", `{"query":"lighthouse keeper ledger","top_k":3}`), nil, true},
		{"retrieve again (cached)", call("core_retrieve_text", `{"query":"lighthouse keeper ledger","top_k":3}`), nil, true},
		{"string id", strings.Replace(call("core_stats", `{}`), `"id":7`, `"id":"a-1"`, 1), nil, true},
		{"no arguments", `{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"core_stats"}}`, nil, true},
		{"list documents", call("core_list_documents", `{}`), nil, true},
		{"top_k 0 refused", call("core_retrieve_text", `{"query":"x","top_k":0}`), nil, true},
		{"wrong type", call("core_retrieve_text", `{"query":5}`), nil, true},
		{"unknown job", call("core_job_status", `{"job_id":"nope"}`), nil, true},
		{"unknown tool", call("no_such_tool", `{}`), nil, false},
		{"progress token", `{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"core_stats","arguments":{},"_meta":{"progressToken":"p"}}}`, nil, false},
		{"notification", `{"jsonrpc":"2.0","method":"notifications/initialized"}`, nil, false},
		{"tools/list", `{"jsonrpc":"2.0","id":3,"method":"tools/list"}`, nil, false},
		{"batch", "[" + call("core_stats", `{}`) + "]", nil, false},
		{"old protocol version", call("core_stats", `{}`), map[string]string{"MCP-Protocol-Version": "2024-11-05"}, false},
		{"unsupported protocol version", call("core_stats", `{}`), map[string]string{"MCP-Protocol-Version": "1999-01-01"}, false},
		{"Accept without event-stream", call("core_stats", `{}`), map[string]string{"Accept": "application/json"}, false},
		{"session id", call("core_stats", `{}`), map[string]string{"Mcp-Session-Id": "abc"}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			send := func(h http.Handler) *httptest.ResponseRecorder {
				r := httptest.NewRequest(http.MethodPost, "/mcp", bytes.NewReader([]byte(c.body)))
				for k, v := range stdHeaders {
					r.Header.Set(k, v)
				}
				for k, v := range c.headers {
					r.Header.Set(k, v)
				}
				w := httptest.NewRecorder()
				h.ServeHTTP(w, r)
				return w
			}
			before := mcp.FastCallsServed(s.MCP)
			got := send(fast)
			served := mcp.FastCallsServed(s.MCP) - before
			want := send(sdkOnly)
			if served != map[bool]int64{true: 1, false: 0}[c.fast] {
				t.Errorf("fast path answered %d calls, want fast=%v", served, c.fast)
			}
			gb, _ := io.ReadAll(got.Body)
			wb, _ := io.ReadAll(want.Body)
			if got.Code != want.Code || !bytes.Equal(gb, wb) {
				t.Fatalf("fast path answered\n%d %s\nthe SDK\n%d %s", got.Code, gb, want.Code, wb)
			}
			for _, h := range []string{"Content-Type", "Cache-Control", "Connection"} {
				if got.Header().Get(h) != want.Header().Get(h) {
					t.Errorf("%s: fast %q, SDK %q", h, got.Header().Get(h), want.Header().Get(h))
				}
			}
			if c.fast && !bytes.Contains(gb, []byte(`"result"`)) {
				t.Errorf("no result: %s", gb)
			}
		})
	}
}
