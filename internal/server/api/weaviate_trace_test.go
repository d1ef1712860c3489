package api_test

import (
	"net/http"
	"testing"
	"time"

	"ragd/internal/testkit/collector"
	"ragd/internal/testkit/stack"
	"ragd/internal/testkit/testenv"
)

// With OpenTelemetry on in Weaviate, ragd's trace continues into it: the
// spans Weaviate records for an ingest's batch write and a search's gRPC
// query arrive in the caller's trace, children of ragd's weaviate.upsert
// and weaviate.search spans (ragd passes the trace context on with every
// call).
func TestTraceContinuesIntoWeaviate(t *testing.T) {
	t.Parallel()
	weaviateSpans := collector.StartGRPC(t)
	w := testenv.StartWeaviate(t, "EXPERIMENTAL_OTEL_ENABLED=true", "EXPERIMENTAL_OTEL_EXPORTER_OTLP_PROTOCOL=grpc",
		"EXPERIMENTAL_OTEL_EXPORTER_OTLP_ENDPOINT="+weaviateSpans.URL(), "EXPERIMENTAL_OTEL_BSP_EXPORT_TIMEOUT=100ms")
	col := collector.Start(t)
	cfg := stack.Config(t)
	cfg.Weaviate.URL, cfg.Weaviate.GRPCAddr = w.URL, w.GRPCAddr
	cfg.Telemetry.OTLPEndpoint = col.URL()
	s := stack.Start(t, cfg, true)
	if r := tracedPost(t, s, "/tools/rag_index", map[string]any{"text": secretDocument, "kb_name": "harbour", "wait": true}); r.Status != http.StatusOK {
		t.Fatalf("rag_index: %d %v", r.Status, r.JSON)
	}
	if r := tracedPost(t, s, "/tools/rag_search", map[string]any{"query": secretQuery, "kb_name": "harbour", "top_k": 3}); r.Status != http.StatusOK || num(r.JSON, "count") != 1 {
		t.Fatalf("rag_search: %d %v", r.Status, r.JSON)
	}
	ours := spansOf(t, s, col, func(spans []collector.Span) bool {
		tr := collector.Trace(spans, callerTrace)
		return len(collector.Named(tr, "weaviate.search")) > 0 && len(collector.Named(tr, "weaviate.upsert")) > 0
	})
	calls := map[string]string{} // ragd's span id → its name
	for _, name := range []string{"weaviate.search", "weaviate.upsert"} {
		for _, sp := range collector.Named(collector.Trace(ours, callerTrace), name) {
			calls[sp.SpanID] = name
		}
	}
	continued := func(spans []collector.Span) map[string]bool {
		seen := map[string]bool{}
		for _, sp := range collector.Trace(spans, callerTrace) {
			if name, ok := calls[sp.ParentID]; ok && sp.Service == "weaviate" {
				seen[name] = true
			}
		}
		return seen
	}
	// Fails, with what Weaviate sent, unless it continued both calls.
	spans := weaviateSpans.Wait(t, time.Minute, func(spans []collector.Span) bool { return len(continued(spans)) == 2 })
	t.Logf("Weaviate's spans in the caller's trace:\n%s", collector.Tree(collector.Trace(spans, callerTrace)))
}
