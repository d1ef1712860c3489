package mcp

import "net/http"

// SDKOnlyHandler is the streamable-HTTP handler without fastCalls: every
// message goes to the SDK.
func SDKOnlyHandler(m *Server) http.Handler { return m.httpHandler(false) }

// FastCallsServed is how many calls fastCalls answered.
func FastCallsServed(m *Server) int64 { return m.fast.served.Load() }
