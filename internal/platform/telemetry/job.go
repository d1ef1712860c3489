package telemetry

import (
	"context"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
)

// Job is one run of a job, as its spans describe it.
type Job struct {
	ID, Type, Namespace string
	// DocumentID is a document job's; ParentID a directory's file job's
	// directory.
	DocumentID, ParentID string
	// Attempt counts from 1; each is a span of its own.
	Attempt int
	// Trace is what the job's payload carried, nil for a job enqueued
	// outside a trace (a watched directory's sync).
	Trace *Carrier
}

// StartJob opens the span of one run of a job, a child of the span that
// enqueued it (so a request's trace goes on into the worker), linked to
// the job that enqueued it if one did. The first run also gets the span
// of its wait in the queue, from the enqueue to now.
func (p *Provider) StartJob(ctx context.Context, j Job) (context.Context, Span) {
	if p == nil {
		return ctx, Span{}
	}
	ctx = p.with(ctx)
	var links []trace.Link
	attrs := []attribute.KeyValue{attribute.String(KeyJobID, j.ID), attribute.String(KeyJobType, j.Type),
		attribute.String(KeyNamespace, j.Namespace), attribute.Int(KeyAttempt, j.Attempt)}
	if j.DocumentID != "" {
		attrs = append(attrs, attribute.String(KeyDocumentID, j.DocumentID))
	}
	if j.ParentID != "" {
		attrs = append(attrs, attribute.String(KeyParentJob, j.ParentID))
	}
	if c := j.Trace; c != nil {
		ctx = p.prop.Extract(ctx, propagation.MapCarrier{"traceparent": c.Parent, "tracestate": c.State})
		if c.Link != "" {
			linked := p.prop.Extract(context.Background(), propagation.MapCarrier{"traceparent": c.Link})
			if sc := trace.SpanContextFromContext(linked); sc.IsValid() {
				links = append(links, trace.Link{SpanContext: sc, Attributes: []attribute.KeyValue{attribute.String(KeyParentJob, j.ParentID)}})
			}
		}
	}
	now := time.Now()
	if j.Attempt <= 1 && j.Trace != nil && j.Trace.Enqueued > 0 {
		enqueued := time.Unix(0, j.Trace.Enqueued)
		if enqueued.Before(now) {
			_, wait := p.tracer.Start(ctx, "job.wait "+j.Type, trace.WithTimestamp(enqueued), trace.WithSpanKind(trace.SpanKindInternal),
				trace.WithAttributes(attrs...))
			wait.End(trace.WithTimestamp(now))
		}
	}
	ctx, s := p.tracer.Start(ctx, "job "+j.Type, trace.WithSpanKind(trace.SpanKindConsumer), trace.WithTimestamp(now),
		trace.WithLinks(links...), trace.WithAttributes(attrs...))
	return ctx, Span{s: s, texts: p.texts}
}
