package procbench

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/weaviate/weaviate-go-client/v5/weaviate/graphql"

	"ragd/internal/testkit/stack"
)

// searchQueries are the questions the benchmarks here ask.
var searchQueries = stack.SpecQueries

// BenchmarkProcessKeywordSearch measures REST rag_search in keyword mode
// (expansions off, as by default; result cache off, so every call
// searches) against ragd running as its own process, and the floor: the
// same BM25 query sent to Weaviate over gRPC by a raw client fetching the
// properties rag_search returns, interleaved call by call, at concurrency
// 1 and 16, three rounds each. Targets: p50 ≤ 1.5× raw at c1, ≤ 1.15× at
// c16. RAGD_BENCH_PROFILE=FILE writes ragd's CPU profile of the run.
func BenchmarkProcessKeywordSearch(b *testing.B) {
	settings := map[string]string{"RAGD_CACHE_ENABLED": "false"}
	r := startRagd(b, settings)
	dir := filepath.Join(r.Root, "godoc")
	stack.CopySpecDocs(b, dir)
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}
	post(b, client, r.URL+"/tools/rag_index_directory", map[string]any{"directory_path": dir, "wait": true}, nil)

	raw := rawClient(b)
	ctx := context.Background()
	rawKeyword := func(q string) {
		_, err := raw.Experimental().Search().WithCollection(r.Config.Weaviate.Collection).WithTenant("default").WithLimit(5).
			WithProperties("text", "document_id", "source", "source_type", "content_hash", "chunk_index", "path", "level",
				"summary", "page", "timestamp", "tags", "ocr", "access").
			WithMetadata(&graphql.Metadata{ID: true, Score: true}).
			WithBM25((&graphql.BM25ArgumentBuilder{}).WithQuery(q).WithProperties("text", "path")).Do(ctx)
		if err != nil {
			b.Fatal(err)
		}
	}
	ragdKeyword := func(q string) {
		var out struct{ Count int }
		post(b, client, r.URL+"/tools/rag_search", map[string]any{"query": q, "top_k": 5, "mode": "keyword"}, &out)
	}
	stack.Interleaved(4, 1, searchQueries, rawKeyword, ragdKeyword) // warm connections and caches
	b.ResetTimer()
	for range b.N {
		for _, c := range []int{1, 16} {
			var ratios []float64
			var last [2]time.Duration
			for range 3 {
				l := stack.Interleaved(c, 5, searchQueries, rawKeyword, ragdKeyword)
				last = [2]time.Duration{p50(l[0]), p50(l[1])}
				ratios = append(ratios, float64(last[1])/float64(last[0]))
			}
			target := map[int]float64{1: 1.5, 16: 1.15}[c]
			fmt.Printf("REST keyword search, ragd as a process vs raw BM25 over gRPC, c%d: p50 ratio %s (target ≤ %.2f); last round p50 raw %s, ragd %s\n",
				c, spread(ratios), target, last[0].Round(time.Microsecond), last[1].Round(time.Microsecond))
			b.ReportMetric(median(ratios), fmt.Sprintf("p50-ratio-c%d", c))
		}
	}
}

// post sends body as JSON and decodes a 200 or 202 answer into out (when set).
func post(b testing.TB, client *http.Client, url string, body, out any) {
	data, err := json.Marshal(body)
	if err != nil {
		b.Fatal(err)
	}
	resp, err := client.Post(url, "application/json", bytes.NewReader(data))
	if err != nil {
		b.Fatal(err)
	}
	defer resp.Body.Close()
	got, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK && resp.StatusCode != http.StatusAccepted && resp.StatusCode != http.StatusCreated {
		b.Fatalf("%s: %d %s", url, resp.StatusCode, got)
	}
	if out != nil {
		if err := json.Unmarshal(got, out); err != nil {
			b.Fatalf("%s: %v", url, err)
		}
	}
}

func p50(l []time.Duration) time.Duration {
	s := slices.Clone(l)
	slices.Sort(s)
	return s[len(s)/2]
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[len(s)/2]
}

// spread is "median (min–max)".
func spread(xs []float64) string {
	s := slices.Clone(xs)
	slices.Sort(s)
	return fmt.Sprintf("%.2f (%.2f–%.2f)", s[len(s)/2], s[0], s[len(s)-1])
}

func decodeJSON(resp *http.Response, out any) error {
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s: %d %s", resp.Request.URL, resp.StatusCode, data)
	}
	return json.Unmarshal(data, out)
}

func decodeRaw(data []byte, out any) error { return json.Unmarshal(data, out) }
