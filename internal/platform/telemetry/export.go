package telemetry

import (
	"context"
	"fmt"
	"net/url"

	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracegrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

// tracesPath is where an OTLP/HTTP collector takes traces.
const tracesPath = "/v1/traces"

// newExporter is the OTLP exporter c names. An http/protobuf endpoint
// given as a base URL (no path) gets the standard /v1/traces, as
// OTEL_EXPORTER_OTLP_ENDPOINT does; a URL with a path is used as it is.
// An http:// endpoint is sent to in plain text, an https:// one over TLS.
func newExporter(ctx context.Context, c Config) (sdktrace.SpanExporter, error) {
	u, err := url.Parse(c.Endpoint)
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return nil, fmt.Errorf("telemetry.otlp_endpoint: want an http:// or https:// URL, not %q", c.Endpoint)
	}
	switch c.Protocol {
	case ProtocolGRPC:
		opts := []otlptracegrpc.Option{otlptracegrpc.WithEndpointURL(c.Endpoint), otlptracegrpc.WithTimeout(exportTimeout(c))}
		if len(c.Headers) > 0 {
			opts = append(opts, otlptracegrpc.WithHeaders(c.Headers))
		}
		return otlptracegrpc.New(ctx, opts...)
	case ProtocolHTTP, "":
		if u.Path == "" || u.Path == "/" {
			u.Path = tracesPath
		}
		opts := []otlptracehttp.Option{otlptracehttp.WithEndpointURL(u.String()), otlptracehttp.WithTimeout(exportTimeout(c))}
		if len(c.Headers) > 0 {
			opts = append(opts, otlptracehttp.WithHeaders(c.Headers))
		}
		return otlptracehttp.New(ctx, opts...)
	}
	return nil, fmt.Errorf("telemetry.protocol: want %s or %s, not %q", ProtocolHTTP, ProtocolGRPC, c.Protocol)
}
