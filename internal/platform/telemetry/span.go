package telemetry

import (
	"context"
	"time"

	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
)

// Span is one traced operation. The zero Span, which Start gives when
// nothing is traced, does nothing; callers that build attributes check
// Recording first, so an untraced call builds none.
type Span struct {
	s     trace.Span
	texts bool
}

// Start opens a span named name as a child of ctx's span, when that span
// is being recorded; otherwise it returns ctx and the zero Span. Spans
// open only under a traced request or job, so background work (Asynq's
// polling, the live-state poll) makes none.
func Start(ctx context.Context, name string) (context.Context, Span) {
	return start(ctx, name, trace.SpanKindInternal, time.Time{})
}

// StartClient is Start for a call to another service.
func StartClient(ctx context.Context, name string) (context.Context, Span) {
	return start(ctx, name, trace.SpanKindClient, time.Time{})
}

// StartCall is StartClient for the call op of a dependency, the span
// named <dependency>.<op>; the name is built only for a recorded span.
func StartCall(ctx context.Context, dependency, op string) (context.Context, Span) {
	if live.Load() == 0 {
		return ctx, Span{}
	}
	return start(ctx, dependency+"."+op, trace.SpanKindClient, time.Time{})
}

// StartProducer is Start for a message sent for later handling (a job
// enqueued).
func StartProducer(ctx context.Context, name string) (context.Context, Span) {
	return start(ctx, name, trace.SpanKindProducer, time.Time{})
}

// StartAt is Start for an operation that began at t (one OCR page, heard
// of when it ends).
func StartAt(ctx context.Context, name string, t time.Time) (context.Context, Span) {
	return start(ctx, name, trace.SpanKindInternal, t)
}

func start(ctx context.Context, name string, kind trace.SpanKind, at time.Time) (context.Context, Span) {
	if live.Load() == 0 {
		return ctx, Span{}
	}
	p := of(ctx)
	if p == nil || !trace.SpanFromContext(ctx).IsRecording() {
		return ctx, Span{}
	}
	opts := []trace.SpanStartOption{trace.WithSpanKind(kind)}
	if !at.IsZero() {
		opts = append(opts, trace.WithTimestamp(at))
	}
	ctx, s := p.tracer.Start(ctx, name, opts...)
	return ctx, Span{s: s, texts: p.texts}
}

// Current is ctx's span as a Span, the zero Span unless it is one of
// ragd's being recorded: a guarded call's adapter adds what it knows to
// the call's span.
func Current(ctx context.Context) Span {
	if live.Load() == 0 {
		return Span{}
	}
	p := of(ctx)
	s := trace.SpanFromContext(ctx)
	if p == nil || !s.IsRecording() {
		return Span{}
	}
	return Span{s: s, texts: p.texts}
}

// Recording reports whether the span is recorded (attributes set on it
// are kept).
func (s Span) Recording() bool { return s.s != nil }

// Set sets attributes.
func (s Span) Set(attrs ...Attr) {
	if s.s != nil {
		s.s.SetAttributes(attrs...)
	}
}

// Text sets a query's text as attribute key, only with
// telemetry.record_queries on: by default no span carries what was asked
// or what documents say.
func (s Span) Text(key, text string) {
	if s.s != nil && s.texts {
		s.s.SetAttributes(String(key, text))
	}
}

// Event records something that happened during the span (a retry, a
// refusal by an open breaker).
func (s Span) Event(name string, attrs ...Attr) {
	if s.s != nil {
		s.s.AddEvent(name, trace.WithAttributes(attrs...))
	}
}

// Fail marks the span failed with err, without ending it.
func (s Span) Fail(err error) {
	if s.s != nil && err != nil {
		s.s.SetStatus(codes.Error, err.Error())
	}
}

// End ends the span, failed if err is not nil.
func (s Span) End(err error) {
	if s.s == nil {
		return
	}
	s.Fail(err)
	s.s.End()
}

// EndAt is End with the end time given.
func (s Span) EndAt(t time.Time) {
	if s.s != nil {
		s.s.End(trace.WithTimestamp(t))
	}
}

// IDs are the span's trace and span ids in hex, empty for the zero Span.
func (s Span) IDs() (traceID, spanID string) {
	if s.s == nil {
		return "", ""
	}
	sc := s.s.SpanContext()
	return sc.TraceID().String(), sc.SpanID().String()
}
