package telemetry

import (
	"context"
	"net/http"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
)

// StartRequest opens the server span of an HTTP request matched to route
// (the route's template, never the raw path, which holds ids): a child of
// the caller's span when it sent a W3C traceparent header, else the root
// of a new trace.
func (p *Provider) StartRequest(r *http.Request, route string) (context.Context, Span) {
	if p == nil {
		return r.Context(), Span{}
	}
	ctx := p.Extract(r.Context(), r.Header)
	ctx, s := p.tracer.Start(ctx, r.Method+" "+route, trace.WithSpanKind(trace.SpanKindServer),
		trace.WithAttributes(attribute.String("http.request.method", r.Method), attribute.String("http.route", route)))
	return ctx, Span{s: s, texts: p.texts}
}

// Extract is ctx with the trace context of header's traceparent and
// tracestate, if any, as the parent of the spans opened under it (an MCP
// request's tool calls, when their _meta brings none).
func (p *Provider) Extract(ctx context.Context, header http.Header) context.Context {
	if p == nil {
		return ctx
	}
	return p.prop.Extract(p.with(ctx), propagation.HeaderCarrier(header))
}

// EndRequest ends an HTTP request's span with the status it answered; a
// server error fails it, a client's error does not.
func (s Span) EndRequest(status int) {
	if s.s == nil {
		return
	}
	s.s.SetAttributes(attribute.Int("http.response.status_code", status))
	if status >= 500 {
		s.s.SetStatus(codes.Error, http.StatusText(status))
	}
	s.s.End()
}
