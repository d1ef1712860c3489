// Package collector is an OTLP trace receiver for tests: an HTTP server
// that takes what ragd's exporter sends to /v1/traces, or a gRPC server of
// the OTLP trace service (StartGRPC), decoding the protobuf wire format
// (go.opentelemetry.io/proto/otlp) and keeping every span, so a test can
// check the tree a request or a job made.
package collector

import (
	"compress/gzip"
	"context"
	"encoding/hex"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	coltrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	common "go.opentelemetry.io/proto/otlp/common/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/grpc"
	"google.golang.org/grpc/metadata"
	"google.golang.org/protobuf/proto"
)

// Collector is a running receiver.
type Collector struct {
	srv   *httptest.Server
	url   string
	mu    sync.Mutex
	spans []Span
	heard map[string]string // the last export's headers (gRPC metadata), lower-cased
}

// Span is one received span, its ids in hex and its attributes' values
// as text.
type Span struct {
	Service                   string
	TraceID, SpanID, ParentID string
	Name, Kind                string
	Start, End                time.Time
	Attrs                     map[string]string
	Events                    []Event
	Links                     []Link
	// Status is "error", "ok" or "" (unset); StatusMessage says why.
	Status, StatusMessage string
}

// Event is a span's event.
type Event struct {
	Name  string
	Attrs map[string]string
}

// Link is a span's link to another span.
type Link struct {
	TraceID, SpanID string
	Attrs           map[string]string
}

// Start runs a receiver until the test ends.
func Start(t testing.TB) *Collector {
	c := &Collector{}
	c.srv = httptest.NewServer(http.HandlerFunc(c.receive))
	c.url = c.srv.URL
	t.Cleanup(c.srv.Close)
	return c
}

// StartGRPC runs a receiver of OTLP over gRPC (the trace service's
// Export) on loopback until the test ends.
func StartGRPC(t testing.TB) *Collector {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	c := &Collector{url: "http://" + l.Addr().String()}
	srv := grpc.NewServer()
	coltrace.RegisterTraceServiceServer(srv, grpcReceiver{c: c})
	go func() { _ = srv.Serve(l) }()
	t.Cleanup(srv.Stop)
	return c
}

// grpcReceiver is the trace service of a StartGRPC collector.
type grpcReceiver struct {
	coltrace.UnimplementedTraceServiceServer
	c *Collector
}

func (g grpcReceiver) Export(ctx context.Context, req *coltrace.ExportTraceServiceRequest) (*coltrace.ExportTraceServiceResponse, error) {
	md, _ := metadata.FromIncomingContext(ctx)
	heard := map[string]string{}
	for k, v := range md {
		heard[k] = strings.Join(v, ",")
	}
	g.c.mu.Lock()
	g.c.heard = heard
	g.c.mu.Unlock()
	g.c.add(req)
	return &coltrace.ExportTraceServiceResponse{}, nil
}

// URL is the receiver's base URL, for telemetry.otlp_endpoint.
func (c *Collector) URL() string { return c.url }

// Header is a header of the last export, "" when it had none.
func (c *Collector) Header(name string) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.heard[strings.ToLower(name)]
}

func (c *Collector) receive(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.URL.Path != "/v1/traces" {
		http.NotFound(w, r)
		return
	}
	heard := map[string]string{}
	for k, v := range r.Header {
		heard[strings.ToLower(k)] = strings.Join(v, ",")
	}
	c.mu.Lock()
	c.heard = heard
	c.mu.Unlock()
	var body io.Reader = r.Body
	if r.Header.Get("Content-Encoding") == "gzip" {
		z, err := gzip.NewReader(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		body = z
	}
	raw, err := io.ReadAll(body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	var req coltrace.ExportTraceServiceRequest
	if err := proto.Unmarshal(raw, &req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	c.add(&req)
	out, _ := proto.Marshal(&coltrace.ExportTraceServiceResponse{})
	w.Header().Set("Content-Type", "application/x-protobuf")
	_, _ = w.Write(out)
}

// add keeps the spans of an export.
func (c *Collector) add(req *coltrace.ExportTraceServiceRequest) {
	var got []Span
	for _, rs := range req.ResourceSpans {
		service := attrs(rs.GetResource().GetAttributes())["service.name"]
		for _, ss := range rs.ScopeSpans {
			for _, s := range ss.Spans {
				got = append(got, spanOf(service, s))
			}
		}
	}
	c.mu.Lock()
	c.spans = append(c.spans, got...)
	c.mu.Unlock()
}

func spanOf(service string, s *tracepb.Span) Span {
	out := Span{Service: service, TraceID: hex.EncodeToString(s.TraceId), SpanID: hex.EncodeToString(s.SpanId),
		ParentID: hex.EncodeToString(s.ParentSpanId), Name: s.Name, Kind: strings.TrimPrefix(s.Kind.String(), "SPAN_KIND_"),
		Start: time.Unix(0, int64(s.StartTimeUnixNano)), End: time.Unix(0, int64(s.EndTimeUnixNano)), Attrs: attrs(s.Attributes)}
	for _, e := range s.Events {
		out.Events = append(out.Events, Event{Name: e.Name, Attrs: attrs(e.Attributes)})
	}
	for _, l := range s.Links {
		out.Links = append(out.Links, Link{TraceID: hex.EncodeToString(l.TraceId), SpanID: hex.EncodeToString(l.SpanId), Attrs: attrs(l.Attributes)})
	}
	switch s.GetStatus().GetCode() {
	case tracepb.Status_STATUS_CODE_ERROR:
		out.Status = "error"
	case tracepb.Status_STATUS_CODE_OK:
		out.Status = "ok"
	}
	out.StatusMessage = s.GetStatus().GetMessage()
	return out
}

func attrs(kvs []*common.KeyValue) map[string]string {
	m := make(map[string]string, len(kvs))
	for _, kv := range kvs {
		m[kv.Key] = valueText(kv.Value)
	}
	return m
}

func valueText(v *common.AnyValue) string {
	switch x := v.GetValue().(type) {
	case *common.AnyValue_StringValue:
		return x.StringValue
	case *common.AnyValue_IntValue:
		return fmt.Sprint(x.IntValue)
	case *common.AnyValue_BoolValue:
		return fmt.Sprint(x.BoolValue)
	case *common.AnyValue_DoubleValue:
		return fmt.Sprint(x.DoubleValue)
	case *common.AnyValue_ArrayValue:
		var parts []string
		for _, e := range x.ArrayValue.Values {
			parts = append(parts, valueText(e))
		}
		return "[" + strings.Join(parts, ",") + "]"
	case *common.AnyValue_BytesValue:
		return hex.EncodeToString(x.BytesValue)
	}
	return ""
}

// Spans are the spans received so far.
func (c *Collector) Spans() []Span {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.spans)
}

// Wait returns the spans once done says they are complete, failing the
// test after timeout.
func (c *Collector) Wait(t testing.TB, timeout time.Duration, done func([]Span) bool) []Span {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		spans := c.Spans()
		if done(spans) {
			return spans
		}
		if time.Now().After(deadline) {
			t.Fatalf("spans incomplete after %s; received:\n%s", timeout, Tree(spans))
		}
		time.Sleep(20 * time.Millisecond)
	}
}
