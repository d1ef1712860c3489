package mcpserver_test

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"ragd/internal/testkit/stack"
)

// An MCP-Protocol-Version the server does not support is a 400 naming the
// versions it does, as the MCP spec requires, in ragd's JSON-RPC error
// shape, whatever the method; a version past the newest (9999-99-99) was
// served as 2026-07-28.
func TestMCPRefusesUnsupportedProtocolVersion(t *testing.T) {
	t.Parallel()
	s := stack.Start(t, stack.Config(t), false)
	call := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"core_list_jobs","arguments":{}}}`
	for _, c := range []struct{ method, version, body string }{
		{http.MethodPost, "9999-99-99", call},
		{http.MethodPost, "2026-08-01", call},
		{http.MethodPost, "2023-01-01", call},
		{http.MethodPost, "latest", call},
		{http.MethodGet, "9999-99-99", ""},
		{http.MethodDelete, "9999-99-99", ""},
	} {
		req, _ := http.NewRequest(c.method, s.URL+"/mcp", strings.NewReader(c.body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("MCP-Protocol-Version", c.version)
		req.Header.Set("Mcp-Method", "tools/call")
		req.Header.Set("Mcp-Name", "core_list_jobs")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		raw, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		var rpc struct {
			Error struct {
				Code    int
				Message string
			}
		}
		_ = json.Unmarshal(raw, &rpc)
		if resp.StatusCode != http.StatusBadRequest || rpc.Error.Code != -32600 ||
			!strings.Contains(rpc.Error.Message, "2025-11-25") || !strings.Contains(rpc.Error.Message, c.version) {
			t.Errorf("%s MCP-Protocol-Version %s: %d %s; want 400, a JSON-RPC error naming it and the supported versions", c.method, c.version, resp.StatusCode, raw)
		}
	}
}
