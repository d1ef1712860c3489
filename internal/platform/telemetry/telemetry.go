// Package telemetry is ragd's OpenTelemetry tracing: the SDK and its OTLP
// exporter (telemetry.otlp_endpoint), the W3C trace context read from HTTP
// headers, from an MCP request's _meta and from a job's payload, the spans
// ragd's code opens and the log handler that stamps each line with its
// trace. It is the only ragd package that imports OpenTelemetry.
//
// With telemetry off there is no Provider (New returns nil, and every
// method of a nil Provider does nothing) and Start returns at once: no
// span, no allocation, not even a context lookup.
package telemetry

import (
	"context"
	"log/slog"
	"sync/atomic"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
)

// Protocols of the OTLP exporter.
const (
	ProtocolHTTP = "http/protobuf"
	ProtocolGRPC = "grpc"
)

// Config is what the exporter and sampler need (telemetry.* settings).
type Config struct {
	// Endpoint is the collector's OTLP base URL (http://host:4318 for
	// http/protobuf, http://host:4317 for grpc); empty turns tracing off.
	Endpoint string
	// Protocol is ProtocolHTTP or ProtocolGRPC.
	Protocol string
	// ServiceName and ServiceVersion name this process's resource.
	ServiceName, ServiceVersion string
	// SampleRatio of new traces are recorded; a trace whose caller sent
	// a traceparent follows the caller's decision.
	SampleRatio float64
	// Headers go with every export (a collector's API key).
	Headers map[string]string
	// RecordQueries lets spans carry query text (Span.Text); off, no
	// span carries query or document text.
	RecordQueries bool
	// ExportTimeout bounds one export, retries included (0: 10 s).
	ExportTimeout time.Duration
}

// scope names ragd's own spans' instrumentation.
const scope = "ragd"

// live counts the Providers running in this process: while none is,
// Start returns before it looks at its context.
var live atomic.Int32

// Provider is one process's tracing: the SDK's tracer provider with its
// batching exporter, and the W3C propagator. A nil Provider is tracing
// off.
type Provider struct {
	sdk      *sdktrace.TracerProvider
	tracer   trace.Tracer
	prop     propagation.TextMapPropagator
	texts    bool
	children trace.TracerProvider
	stopped  atomic.Bool
}

// New starts tracing as c configures it, or returns nil when c.Endpoint
// is empty. Nothing is dialled here: spans are exported in the background,
// in batches, and an unreachable collector costs dropped spans and a
// warning in log, never a request.
func New(ctx context.Context, c Config, log *slog.Logger) (*Provider, error) {
	if c.Endpoint == "" {
		return nil, nil
	}
	exp, err := newExporter(ctx, c)
	if err != nil {
		return nil, err
	}
	watchErrors(log)
	res := resource.NewSchemaless(attribute.String("service.name", c.ServiceName),
		attribute.String("service.version", c.ServiceVersion))
	tp := sdktrace.NewTracerProvider(
		sdktrace.WithResource(res),
		sdktrace.WithSampler(sdktrace.ParentBased(sdktrace.TraceIDRatioBased(c.SampleRatio))),
		// A full queue drops spans rather than making a request wait.
		sdktrace.WithBatcher(exp, sdktrace.WithMaxQueueSize(maxQueuedSpans), sdktrace.WithExportTimeout(exportTimeout(c))),
	)
	p := &Provider{sdk: tp, tracer: tp.Tracer(scope), texts: c.RecordQueries,
		prop: propagation.TraceContext{}}
	p.children = childrenOnly{tp: tp}
	live.Add(1)
	return p, nil
}

// maxQueuedSpans bounds the spans waiting for export; past it new ones
// are dropped.
const maxQueuedSpans = 8192

func exportTimeout(c Config) time.Duration {
	if c.ExportTimeout > 0 {
		return c.ExportTimeout
	}
	return 10 * time.Second
}

// Shutdown exports what is queued, within ctx, and stops tracing.
func (p *Provider) Shutdown(ctx context.Context) error {
	if p == nil || p.stopped.Swap(true) {
		return nil
	}
	live.Add(-1)
	return p.sdk.Shutdown(ctx)
}

// ForceFlush exports every ended span now (tests read them at once).
func (p *Provider) ForceFlush(ctx context.Context) error {
	if p == nil {
		return nil
	}
	return p.sdk.ForceFlush(ctx)
}

// providerKey holds, in a traced context, the Provider its spans come
// from, so the code under a request or job opens spans without being
// handed a tracer.
type providerKey struct{}

// with is ctx knowing p.
func (p *Provider) with(ctx context.Context) context.Context {
	if cur, _ := ctx.Value(providerKey{}).(*Provider); cur == p {
		return ctx
	}
	return context.WithValue(ctx, providerKey{}, p)
}

// of is the Provider ctx's spans come from, nil for none.
func of(ctx context.Context) *Provider {
	p, _ := ctx.Value(providerKey{}).(*Provider)
	return p
}
