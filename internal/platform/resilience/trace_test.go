package resilience

import (
	"context"
	"log/slog"
	"net/http"
	"testing"

	"ragd/internal/platform/telemetry"
	"ragd/internal/testkit/collector"
)

// Under a traced request each guarded call is a client span named by its
// dependency and operation, with the breaker's state, a retry event per
// failed attempt tried again, and an event when the open breaker refuses
// the call.
func TestGuardedCallsAreSpans(t *testing.T) {
	col := collector.Start(t)
	tel, err := telemetry.New(context.Background(), telemetry.Config{Endpoint: col.URL(), Protocol: telemetry.ProtocolHTTP,
		ServiceName: "ragd", SampleRatio: 1}, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = tel.Shutdown(context.Background()) })
	p := testPolicy()
	p.FailThreshold = 3
	g := New("weaviate", p, transient, Hooks{})
	r, _ := http.NewRequest(http.MethodPost, "http://ragd/tools/rag_search", nil)
	ctx, req := tel.StartRequest(r, "/tools/rag_search")
	calls := 0
	if _, err := Do(ctx, g, "search", func(context.Context) (int, error) {
		if calls++; calls < 3 {
			return 0, errDown
		}
		return 1, nil
	}); err != nil {
		t.Fatal(err)
	}
	down := func(context.Context) (int, error) { return 0, errDown }
	_, _ = Do(ctx, g, "upsert", down) // 3 failures: the breaker opens
	if _, err := Do(ctx, g, "upsert", down); err == nil {
		t.Fatal("an open breaker let a call through")
	}
	req.EndRequest(200)
	if err := tel.ForceFlush(context.Background()); err != nil {
		t.Fatal(err)
	}
	spans := col.Spans()
	search, upserts := collector.Named(spans, "weaviate.search"), collector.Named(spans, "weaviate.upsert")
	if len(search) != 1 || len(upserts) != 2 {
		t.Fatalf("spans:\n%s", collector.Tree(spans))
	}
	s := search[0]
	if s.Kind != "CLIENT" || s.Attrs["ragd.breaker.state"] != "closed" || s.Attrs["ragd.attempts"] != "3" || len(s.Events) != 2 ||
		s.Events[0].Name != "retry" || s.Events[0].Attrs["error"] != errDown.Error() || s.Status == "error" {
		t.Errorf("search after two transient failures: %+v", s)
	}
	refused := upserts[1]
	if refused.Attrs["ragd.breaker.state"] != "open" || refused.Status != "error" || len(refused.Events) != 1 ||
		refused.Events[0].Name != "breaker refused the call" {
		t.Errorf("call refused by the open breaker: %+v", refused)
	}
	// Outside a traced request no span opens.
	before := len(col.Spans())
	_, _ = Do(context.Background(), g, "count", func(context.Context) (int, error) { return 0, nil })
	_ = tel.ForceFlush(context.Background())
	if len(col.Spans()) != before {
		t.Errorf("a call outside any request made a span")
	}
}
