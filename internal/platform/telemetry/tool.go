package telemetry

import (
	"context"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
)

// StartTool opens the span of one MCP tool call. Its parent is the trace
// context the client put in the request's _meta (traceparent,
// tracestate, as the MCP specification documents), else the one its HTTP
// request carried (Extract), else none: a new trace.
func (p *Provider) StartTool(ctx context.Context, meta map[string]any, tool string) (context.Context, Span) {
	if p == nil {
		return ctx, Span{}
	}
	ctx = p.with(ctx)
	if parent, ok := meta["traceparent"].(string); ok {
		c := propagation.MapCarrier{"traceparent": parent}
		if state, ok := meta["tracestate"].(string); ok {
			c["tracestate"] = state
		}
		ctx = p.prop.Extract(ctx, c)
	}
	ctx, s := p.tracer.Start(ctx, "tools/call "+tool, trace.WithSpanKind(trace.SpanKindServer),
		trace.WithAttributes(attribute.String("mcp.method.name", "tools/call"), attribute.String("gen_ai.tool.name", tool),
			attribute.String(KeyTool, tool)))
	return ctx, Span{s: s, texts: p.texts}
}
