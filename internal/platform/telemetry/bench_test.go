package telemetry_test

import (
	"context"
	"log/slog"
	"net/http"
	"testing"

	"ragd/internal/platform/telemetry"
	"ragd/internal/testkit/collector"
)

// BenchmarkStart is what one span site costs a request: with telemetry
// off (no Provider in the process), on but outside a recorded request
// (Asynq's polling, a request the sampler left out), and on in one (a
// span opened, given attributes, ended and queued for export).
func BenchmarkStart(b *testing.B) {
	site := func(ctx context.Context) {
		_, s := telemetry.Start(ctx, "search.plan")
		if s.Recording() {
			s.Set(telemetry.String(telemetry.KeyNamespace, "docs"), telemetry.Int(telemetry.KeyTopK, 5))
		}
		s.End(nil)
	}
	b.Run("off", func(b *testing.B) {
		ctx := context.Background()
		b.ReportAllocs()
		for b.Loop() {
			site(ctx)
		}
	})
	col := collector.Start(b)
	p, err := telemetry.New(context.Background(), telemetry.Config{Endpoint: col.URL(), Protocol: telemetry.ProtocolHTTP,
		ServiceName: "ragd", SampleRatio: 1}, slog.New(slog.DiscardHandler))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = p.Shutdown(context.Background()) })
	b.Run("on-outside-a-request", func(b *testing.B) {
		ctx := context.Background()
		b.ReportAllocs()
		for b.Loop() {
			site(ctx)
		}
	})
	b.Run("on-in-a-request", func(b *testing.B) {
		r, _ := http.NewRequest(http.MethodPost, "http://ragd/tools/rag_search", nil)
		ctx, req := p.StartRequest(r, "/tools/rag_search")
		defer req.EndRequest(200)
		b.ReportAllocs()
		for b.Loop() {
			site(ctx)
		}
	})
}
