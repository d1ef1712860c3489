package mcpserver

import (
	"net/http"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// SDKOnlyHandler is the streamable-HTTP handler without fastCalls: every
// message goes to the SDK.
func SDKOnlyHandler(m *Server) http.Handler { return m.httpHandler(false) }

// FastCallsServed is how many calls fastCalls answered.
func FastCallsServed(m *Server) int64 { return m.fast.served.Load() }

// AddTool registers a tool as ragd registers its own, so that fastCalls
// may answer it.
func AddTool(m *Server, t *sdk.Tool, h sdk.ToolHandler) { toolSet{m.server, m.fast}.AddTool(t, h) }
