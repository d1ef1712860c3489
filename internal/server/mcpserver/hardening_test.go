package mcpserver_test

import (
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"ragd/internal/testkit/stack"
)

// postMCP sends body to /mcp with contentType ("" for none) and returns the
// status, the JSON-RPC error of the answer (code 0 when none) and the body.
// Without MCP-Protocol-Version the SDK assumes 2025-03-26, the last revision
// with batches.
func postMCP(t *testing.T, s *stack.Stack, contentType, body string) (int, int, string, []byte) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, s.URL+"/mcp", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	var rpc struct {
		Error struct {
			Code    int
			Message string
		}
	}
	_ = json.Unmarshal(raw, &rpc)
	return resp.StatusCode, rpc.Error.Code, rpc.Error.Message, raw
}

func toolsListBatch(n int) string {
	calls := make([]string, n)
	for i := range calls {
		calls[i] = `{"jsonrpc":"2.0","id":` + strconv.Itoa(i+1) + `,"method":"tools/list"}`
	}
	return "[" + strings.Join(calls, ",") + "]"
}

// One request must not run thousands of tool calls: a batch over
// http.max_batch_calls (default 50, as at POST /) is refused whole.
func TestMCPBatchCapped(t *testing.T) {
	t.Parallel()
	s := stack.Start(t, stack.Config(t), false)
	status, code, msg, raw := postMCP(t, s, "application/json", toolsListBatch(51))
	if status != http.StatusBadRequest || code != -32600 || !strings.Contains(msg, "batch of 51 messages exceeds the limit of 50") {
		t.Fatalf("batch of 51: %d %s, want 400 -32600 naming the limit", status, raw)
	}
	status, code, _, raw = postMCP(t, s, "application/json", toolsListBatch(50))
	if status != http.StatusOK || code != 0 || strings.Count(string(raw), `"tools":[`) != 50 {
		t.Fatalf("batch of 50: %d, want 50 answers: %.300s", status, raw)
	}
}

// /mcp refuses a body not labelled application/json with 415 and a JSON-RPC
// error before reading it as JSON, as the REST API and POST / do.
func TestMCPRefusesOtherContentTypes(t *testing.T) {
	t.Parallel()
	s := stack.Start(t, stack.Config(t), false)
	for _, body := range []string{`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, `{"jsonrpc":`, toolsListBatch(60)} {
		for _, ct := range []string{"text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", "", "text/json"} {
			status, code, msg, raw := postMCP(t, s, ct, body)
			if status != http.StatusUnsupportedMediaType || code != -32600 || !strings.Contains(msg, "application/json") {
				t.Errorf("Content-Type %q body %.30s: %d %s, want 415 with a JSON-RPC error naming application/json", ct, body, status, raw)
			}
		}
	}
	if status, code, _, raw := postMCP(t, s, "application/json; charset=utf-8", `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`); status != http.StatusOK || code != 0 {
		t.Fatalf("application/json; charset=utf-8: %d %s", status, raw)
	}
}
