package telemetry

import (
	"context"
	"net/http"

	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
	"google.golang.org/grpc/metadata"
)

// WithTraceMetadata is md, copied, with ctx's trace context (W3C
// traceparent and tracestate) added, for a gRPC call to a dependency: a
// Weaviate with OpenTelemetry on continues ragd's trace under the call's
// span. md itself, not copied, when ctx carries no span.
func WithTraceMetadata(ctx context.Context, md metadata.MD) metadata.MD {
	if !trace.SpanContextFromContext(ctx).IsValid() {
		return md
	}
	out := md.Copy()
	if out == nil {
		out = metadata.MD{}
	}
	propagation.TraceContext{}.Inject(ctx, metadataCarrier(out))
	return out
}

// metadataCarrier is gRPC metadata as a propagation carrier.
type metadataCarrier metadata.MD

func (c metadataCarrier) Get(key string) string {
	if v := metadata.MD(c).Get(key); len(v) > 0 {
		return v[0]
	}
	return ""
}

func (c metadataCarrier) Set(key, value string) { metadata.MD(c).Set(key, value) }

func (c metadataCarrier) Keys() []string {
	keys := make([]string, 0, len(c))
	for k := range c {
		keys = append(keys, k)
	}
	return keys
}

// TracingTransport is base passing each request's trace context on in its
// headers, for a dependency's HTTP client (Weaviate's REST calls).
func TracingTransport(base http.RoundTripper) http.RoundTripper { return tracingTransport{base} }

type tracingTransport struct{ base http.RoundTripper }

func (t tracingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if trace.SpanContextFromContext(req.Context()).IsValid() {
		req = req.Clone(req.Context()) // a RoundTripper must not change its request
		propagation.TraceContext{}.Inject(req.Context(), propagation.HeaderCarrier(req.Header))
	}
	return t.base.RoundTrip(req)
}
