package api_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"ragd/internal/testkit/stack"
)

// A request to /mcp whose body stalls past http.body_timeout is answered
// as other routes answer it (408) in ragd's JSON-RPC error shape, and one
// cut short as a 400 in that shape; /mcp answered both with a 400 "cannot
// read the request body" that named neither.
func TestMCPBodyTimeoutIsRagdShaped(t *testing.T) {
	t.Parallel()
	cfg := stack.Config(t)
	cfg.HTTP.BodyTimeout = 300 * time.Millisecond
	s := stack.Start(t, cfg, false)
	call := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"core_query","arguments":{"query":"`
	conn := sendPartial(t, s, "/mcp", "application/json", len(call)+100, call)
	status, body, err := readAnswer(t, conn, 5*time.Second)
	if err != nil || status != http.StatusRequestTimeout || !strings.Contains(body, `"jsonrpc":"2.0"`) ||
		!strings.Contains(body, `"code":-32700`) || !strings.Contains(body, "http.body_timeout") {
		t.Errorf("/mcp, body stalled: %d %s %v; want 408 with a JSON-RPC error naming http.body_timeout", status, body, err)
	}
	wantClosed(t, conn)
}
