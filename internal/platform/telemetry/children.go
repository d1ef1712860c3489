package telemetry

import (
	"context"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/embedded"
	"go.opentelemetry.io/otel/trace/noop"
)

// childrenOnly is the tracer provider instrumented libraries (go-redis)
// get: their spans open only under a recorded span of ragd's, so the
// commands of Asynq's polling, heartbeats and the live-state poll, which
// run outside any request, make no traces of their own.
type childrenOnly struct {
	embedded.TracerProvider
	tp *sdktrace.TracerProvider
}

func (c childrenOnly) Tracer(name string, opts ...trace.TracerOption) trace.Tracer {
	return childTracer{t: c.tp.Tracer(name, opts...)}
}

type childTracer struct {
	embedded.Tracer
	t trace.Tracer
}

// untraced is the span of a call outside any recorded span: ending it
// ends nothing of the caller's.
var untraced = noop.Span{}

func (c childTracer) Start(ctx context.Context, name string, opts ...trace.SpanStartOption) (context.Context, trace.Span) {
	if !trace.SpanFromContext(ctx).IsRecording() {
		return ctx, untraced
	}
	return c.t.Start(ctx, name, opts...)
}

// LibraryTracing is the tracer provider to hand an instrumented library
// (go-redis, in package kv): its spans open only under one of ragd's.
func (p *Provider) LibraryTracing() trace.TracerProvider { return p.children }
