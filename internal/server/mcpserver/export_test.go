package mcpserver

import (
	"encoding/json"
	"net/http"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"ragd/internal/platform/envelope"
)

// SDKOnlyHandler is the streamable-HTTP handler without fastCalls: every
// message goes to the SDK.
func SDKOnlyHandler(m *Server) http.Handler { return m.httpHandler(false) }

// FastCallsServed is how many calls fastCalls answered.
func FastCallsServed(m *Server) int64 { return m.fast.served.Load() }

// AddTool registers a tool as ragd registers its own, so that fastCalls
// may answer it.
func AddTool(m *Server, t *sdk.Tool, h sdk.ToolHandler) { toolSet{m.server, m.fast}.AddTool(t, h) }

// WithTasksAdvertised is answer, the SDK's to body at version, as ragd
// sends it: with the Tasks capability and tool execution added.
func WithTasksAdvertised(m *Server, body []byte, version string, answer []byte) []byte {
	var msg struct {
		Method string `json:"method"`
	}
	if json.Unmarshal(body, &msg) != nil || !advertises(&envelope.Envelope{Method: msg.Method}, version >= newProtocol) {
		return answer
	}
	return m.tasks.patchMessages(answer, msg.Method)
}
