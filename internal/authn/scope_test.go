package authn

import (
	"io"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestScopeNeeded: what each kind of request needs of a token ragd issued,
// and that reading an MCP request to learn its tool leaves its body whole.
func TestScopeNeeded(t *testing.T) {
	a := mustNew(t, Config{Mode: ModeOAuth})
	if err := a.EnableOAuth(nil, nil, nil, func(name string) bool { return name != "core_retrieve_text" }); err == nil {
		t.Fatal("EnableOAuth without a server")
	}
	a.writeTool = func(name string) bool { return name != "core_retrieve_text" }
	call := func(name string) string {
		return `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"` + name + `"}}`
	}
	for _, c := range []struct{ method, path, body, want string }{
		{"GET", "/documents", "", ScopeRead},
		{"POST", "/tools/rag_search", "{}", ScopeRead},
		{"POST", "/tools/rag_query", "{}", ScopeRead},
		{"POST", "/", "{}", ScopeRead},
		{"POST", "/tools/rag_index", "{}", ScopeWrite},
		{"PATCH", "/documents/x", "{}", ScopeWrite},
		{"DELETE", "/documents/x", "", ScopeWrite},
		{"GET", "/metrics", "", ScopeOperator},
		{"POST", "/monitoring/api/queues", "", ScopeOperator},
		{"POST", "/mcp", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`, ScopeRead},
		{"POST", "/mcp", call("core_retrieve_text"), ScopeRead},
		{"POST", "/mcp", call("core_ingest"), ScopeWrite},
		{"POST", "/mcp", "[" + call("core_retrieve_text") + "," + call("core_delete_document") + "]", ScopeWrite},
		{"POST", "/mcp", call("core_retrieve_text") + strings.Repeat(" ", maxPeekBytes), ScopeWrite},
		{"DELETE", "/mcp", "", ScopeRead},
		// An MCP task is a job: cancelling it changes state, as
		// POST /jobs/{id}/cancel and core_cancel_job do; reading it does not.
		{"POST", "/mcp", `{"jsonrpc":"2.0","id":1,"method":"tasks/cancel","params":{"taskId":"x"}}`, ScopeWrite},
		{"POST", "/mcp", "[" + call("core_retrieve_text") + `,{"jsonrpc":"2.0","id":2,"method":"tasks/cancel","params":{"taskId":"x"}}]`, ScopeWrite},
		{"POST", "/mcp", `{"jsonrpc":"2.0","id":1,"method":"tasks/get","params":{"taskId":"x"}}`, ScopeRead},
		{"POST", "/mcp", `{"jsonrpc":"2.0","id":1,"method":"tasks/result","params":{"taskId":"x"}}`, ScopeRead},
		{"POST", "/mcp", `{"jsonrpc":"2.0","id":1,"method":"tasks/list","params":{}}`, ScopeRead},
		{"POST", "/mcp", `{"jsonrpc":"2.0","id":1,"method":"tasks/update","params":{"taskId":"x","inputResponses":{}}}`, ScopeRead},
	} {
		r := httptest.NewRequest(c.method, "http://rag.example.com"+c.path, strings.NewReader(c.body))
		if got := a.ScopeNeeded(r); got != c.want {
			t.Errorf("%s %s %.60s: %s, want %s", c.method, c.path, c.body, got, c.want)
		}
		if rest, _ := io.ReadAll(r.Body); string(rest) != c.body {
			t.Errorf("%s %s: the body read on is %d bytes, want the %d sent", c.method, c.path, len(rest), len(c.body))
		}
	}
}
