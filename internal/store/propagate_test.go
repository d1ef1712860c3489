package store

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	pb "github.com/weaviate/weaviate/grpc/generated/protocol/v1"
	"go.opentelemetry.io/otel/trace"
	"google.golang.org/grpc"
	"google.golang.org/grpc/metadata"

	"ragd"
)

// batchStandIn is cloudStandIn answering batches too.
type batchStandIn struct{ cloudStandIn }

func (b batchStandIn) BatchObjects(ctx context.Context, _ *pb.BatchObjectsRequest) (*pb.BatchObjectsReply, error) {
	md, _ := metadata.FromIncomingContext(ctx)
	b.heard <- md
	return &pb.BatchObjectsReply{}, nil
}

// Every call to Weaviate under a traced request carries its trace context
// (W3C traceparent, the call's span as parent) with the API key — REST
// calls and every kind of gRPC call — so that a Weaviate with
// OpenTelemetry on continues ragd's trace; an untraced call carries none.
func TestWeaviateCallsCarryTheTrace(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := grpc.NewServer()
	standIn := batchStandIn{cloudStandIn{heard: make(chan metadata.MD, 8)}}
	pb.RegisterWeaviateServer(srv, standIn)
	go func() { _ = srv.Serve(l) }()
	t.Cleanup(srv.Stop)
	restHeard := make(chan http.Header, 8)
	rest := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/v1/.well-known/live" { // not the client's own version reads
			restHeard <- r.Header.Clone()
		}
	}))
	t.Cleanup(rest.Close)

	s, err := dial(Config{Collection: "C", BatchSize: 10, APIKey: "k-1", Timeout: 5 * time.Second}, rest.URL, l.Addr().String(), 0)
	if err != nil {
		t.Fatal(err)
	}
	s.version = &nodeVersion{read: func() string { return "1.35.2" }}
	sc := trace.NewSpanContext(trace.SpanContextConfig{TraceID: trace.TraceID{1, 2, 3}, SpanID: trace.SpanID{4, 5, 6}, TraceFlags: trace.FlagsSampled})
	traced := trace.ContextWithSpanContext(context.Background(), sc)
	want := "00-" + sc.TraceID().String() + "-" + sc.SpanID().String() + "-01"

	grpcCalls := map[string]func(ctx context.Context) error{
		"chunk search": func(ctx context.Context) error {
			_, err := s.Search(ctx, "ns", ragd.ChunkQuery{Text: "q", Mode: ragd.ModeKeyword, Limit: 5})
			return err
		},
		"document chunks": func(ctx context.Context) error { _, err := s.DocumentChunks(ctx, "ns", "d", "h", 0, 10); return err },
		"chunk batch":     func(ctx context.Context) error { return s.Upsert(ctx, "ns", chunks("d", "h", "a chunk")) },
	}
	for name, call := range grpcCalls {
		for _, ctx := range []context.Context{traced, context.Background()} {
			if err := call(ctx); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			md := <-standIn.heard
			got, wantHere := strings.Join(md.Get("traceparent"), ","), map[bool]string{true: want, false: ""}[ctx == traced]
			if got != wantHere || strings.Join(md.Get("authorization"), ",") != "Bearer k-1" {
				t.Errorf("%s (traced %v): traceparent %q, authorization %q; want %q and the key", name, ctx == traced, got, md.Get("authorization"), wantHere)
			}
		}
	}
	for _, ctx := range []context.Context{traced, context.Background()} {
		_ = s.Ping(ctx)
		h := <-restHeard
		if got, wantHere := h.Get("Traceparent"), map[bool]string{true: want, false: ""}[ctx == traced]; got != wantHere || h.Get("Authorization") != "Bearer k-1" {
			t.Errorf("REST call (traced %v): traceparent %q, authorization %q; want %q and the key", ctx == traced, got, h.Get("Authorization"), wantHere)
		}
	}
}
