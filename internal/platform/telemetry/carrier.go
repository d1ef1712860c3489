package telemetry

import (
	"context"
	"strings"
	"time"

	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
)

// Carrier is a trace context as a job's payload carries it across the
// queue: the W3C traceparent and tracestate of the span that enqueued the
// job, and when that was, for the span of the job's wait.
type Carrier struct {
	Parent string `json:"traceparent"`
	State  string `json:"tracestate,omitempty"`
	// Link is the traceparent of the job that enqueued this one (a
	// directory, for its files), which the job's span links to.
	Link string `json:"link,omitempty"`
	// Enqueued is when, in unix nanoseconds.
	Enqueued int64 `json:"enqueued_ns,omitempty"`
}

// CarrierOf is ctx's trace context to send with a job, nil when ctx is
// not traced (telemetry off, or no span).
func CarrierOf(ctx context.Context) *Carrier {
	if live.Load() == 0 {
		return nil
	}
	parent := traceparent(ctx)
	if parent == nil {
		return nil
	}
	parent.Enqueued = time.Now().UnixNano()
	return parent
}

// LinkTo records in c the span of ctx (the job that enqueues c's job) for
// the job's span to link to.
func (c *Carrier) LinkTo(ctx context.Context) {
	if c == nil {
		return
	}
	if l := traceparent(ctx); l != nil {
		c.Link = l.Parent
	}
}

func traceparent(ctx context.Context) *Carrier {
	if !trace.SpanContextFromContext(ctx).IsValid() {
		return nil
	}
	m := propagation.MapCarrier{}
	propagation.TraceContext{}.Inject(ctx, m)
	return &Carrier{Parent: m["traceparent"], State: m["tracestate"]}
}

// TraceID is the trace a carrier belongs to, in hex; empty for none.
func (c *Carrier) TraceID() string { return TraceIDOf(c.parent()) }

func (c *Carrier) parent() string {
	if c == nil {
		return ""
	}
	return c.Parent
}

// TraceIDOf is the trace id of a W3C traceparent
// (version-traceid-spanid-flags), empty when it is not one.
func TraceIDOf(traceparent string) string {
	parts := strings.Split(traceparent, "-")
	if len(parts) < 4 || len(parts[1]) != 32 {
		return ""
	}
	return parts[1]
}

// Remote is ctx continuing c's trace, for what is logged about a job
// outside its run (Asynq's report of its failure): the lines carry the
// trace's id. ctx as it is when c is nil.
func Remote(ctx context.Context, c *Carrier) context.Context {
	if c == nil {
		return ctx
	}
	return propagation.TraceContext{}.Extract(ctx, propagation.MapCarrier{"traceparent": c.Parent, "tracestate": c.State})
}
