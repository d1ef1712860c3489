package api_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"testing"

	"ragd/internal/testkit/collector"
	"ragd/internal/testkit/stack"
)

// BenchmarkSearchTelemetryCost compares rag_search through REST with
// telemetry off and on (sample_ratio 1, every span exported to an OTLP
// receiver in the test), on the same data, query by query interleaved so
// the machine's noise falls on both alike: uncached at concurrency 1 and
// 16, then cached (the shortest path, where tracing weighs most). It
// reports each p50 and the ratio on/off; it asserts nothing about time.
func BenchmarkSearchTelemetryCost(b *testing.B) {
	root := b.TempDir()
	stack.CopySpecDocs(b, root)
	cfg := stack.Config(b, root)
	cfg.Cache.Enabled = false
	off := stack.Start(b, cfg, true)
	if r := off.Do(b, http.MethodPost, "/tools/rag_index_directory", map[string]any{"directory_path": root, "wait": true}); r.Status != 200 {
		b.Fatalf("index: %d %s", r.Status, r.Body)
	}
	col := collector.Start(b)
	onCfg := cfg
	onCfg.Telemetry.OTLPEndpoint = col.URL()
	on := stack.Start(b, onCfg, false) // same data, every search traced and exported
	offCached, onCached := cfg, onCfg
	offCached.Cache.Enabled, onCached.Cache.Enabled = true, true
	offHot, onHot := stack.Start(b, offCached, false), stack.Start(b, onCached, false)

	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 32}}
	restSearch := func(base string) func(string) {
		return func(q string) {
			body, _ := json.Marshal(map[string]any{"query": q, "top_k": 5})
			resp, err := client.Post(base+"/tools/rag_search", "application/json", bytes.NewReader(body))
			if err != nil {
				b.Fatal(err)
			}
			var out struct{ Count int }
			_ = json.NewDecoder(resp.Body).Decode(&out)
			resp.Body.Close()
			if resp.StatusCode != 200 || out.Count == 0 {
				b.Fatalf("rag_search %q: %d", q, resp.StatusCode)
			}
		}
	}
	for _, s := range []*stack.Stack{off, on, offHot, onHot} { // warm connections and caches
		run(4, 1, restSearch(s.URL))
	}
	b.ResetTimer()
	for range b.N {
		spansBefore := len(col.Spans())
		fmt.Printf("rag_search p50, telemetry off vs on (sample_ratio 1, exported to an in-test OTLP receiver), %d queries × 5 rounds:\n", len(benchQueries))
		for _, c := range []int{1, 16} {
			l := runInterleaved(c, 5, restSearch(off.URL), restSearch(on.URL))
			ratio := float64(l[1].pct(0.5)) / float64(l[0].pct(0.5))
			fmt.Printf("  uncached, concurrency %2d: off p50 %6.2f ms p99 %6.2f ms | on p50 %6.2f ms p99 %6.2f ms | ratio %.3f\n",
				c, ms(l[0].pct(0.5)), ms(l[0].pct(0.99)), ms(l[1].pct(0.5)), ms(l[1].pct(0.99)), ratio)
			b.ReportMetric(ratio, fmt.Sprintf("p50-on/off-c%d", c))
		}
		l := runInterleaved(1, 5, restSearch(offHot.URL), restSearch(onHot.URL))
		ratio := float64(l[1].pct(0.5)) / float64(l[0].pct(0.5))
		fmt.Printf("  cached, concurrency  1: off p50 %6.3f ms | on p50 %6.3f ms | ratio %.3f (+%.0f µs)\n",
			ms(l[0].pct(0.5)), ms(l[1].pct(0.5)), ratio, float64((l[1].pct(0.5) - l[0].pct(0.5)).Microseconds()))
		b.ReportMetric(ratio, "p50-on/off-cached")
		_ = on.Telemetry.ForceFlush(b.Context())
		_ = onHot.Telemetry.ForceFlush(b.Context())
		fmt.Printf("  spans the receiver took: %d\n", len(col.Spans())-spansBefore)
	}
}
