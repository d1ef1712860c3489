package mcpserver

import (
	"context"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"ragd/internal/platform/telemetry"
)

// startCall opens a tool call's span, a child of the trace context the
// client put in the request's _meta (traceparent, tracestate), else of
// the HTTP request's. Both the fast path and the SDK pass here, so every
// call is one span however it came; with telemetry off it is a nil check.
func (m *Server) startCall(ctx context.Context, req *sdk.CallToolRequest) (context.Context, telemetry.Span) {
	if m.cfg.Telemetry == nil || req == nil || req.Params == nil {
		return ctx, telemetry.Span{}
	}
	return m.cfg.Telemetry.StartTool(ctx, req.Params.GetMeta(), req.Params.Name)
}

// endCall ends a tool call's span with its outcome.
func endCall(span telemetry.Span, err error) {
	if !span.Recording() {
		return
	}
	status := "ok"
	if err != nil {
		status = "error"
	}
	span.Set(telemetry.String(telemetry.KeyStatus, status))
	span.End(err)
}
