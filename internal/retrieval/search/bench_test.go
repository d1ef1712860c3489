package search_test

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"testing"
	"time"

	"ragd/internal/eval"
	"ragd/internal/retrieval/search"
	"ragd/internal/testkit/stack"
)

// BenchmarkRetrievalLatency measures rag_search at the service (uncached,
// one query at a time) over the evaluation corpus and the development
// set's questions, for plain hybrid search, the default retrieval and the
// techniques that are off by default. Target: the default's p50 at
// most 2× plain hybrid's.
func BenchmarkRetrievalLatency(b *testing.B) {
	dir := b.TempDir()
	if _, err := eval.BuildCorpus(runtime.GOROOT(), dir); err != nil {
		b.Fatal(err)
	}
	f, err := os.Open(filepath.Join("..", "..", "eval", "testdata", "devset.jsonl"))
	if err != nil {
		b.Fatal(err)
	}
	qs, err := eval.LoadQuestions(f)
	f.Close()
	if err != nil {
		b.Fatal(err)
	}
	cfg := stack.Config(b, dir)
	cfg.Cache.Enabled = false
	cfg.Ingest.RelatedWords = true // for the default+related variant; unsearched by the others
	s := stack.Start(b, cfg, true)
	if r := s.Do(b, http.MethodPost, "/tools/rag_index_directory", map[string]any{"directory_path": dir, "kb_name": "eval", "wait": true}); r.Status != 200 {
		b.Fatalf("index: %d %s", r.Status, r.Body)
	}
	def := s.Search.Retrieval
	variants := []struct {
		name string
		r    search.Retrieval
	}{
		{"plain-hybrid", search.Retrieval{}},
		{"stems-only", with(def, func(r *search.Retrieval) { r.SynonymExpansion = false })},
		{"default", def},
		{"default+related", with(def, func(r *search.Retrieval) { r.RelatedWeight = 0.4 })},
		{"default+neighbours", with(def, func(r *search.Retrieval) { r.NeighbourExpansion = true })},
		{"default+prf", with(def, func(r *search.Retrieval) { r.PRF = true })},
	}
	ctx := context.Background()
	k := 5
	searchAll := func(r search.Retrieval) []time.Duration {
		s.Search.Retrieval = r
		out := make([]time.Duration, 0, len(qs))
		for _, q := range qs {
			start := time.Now()
			if _, err := s.Search.Search(ctx, search.RetrieveRequest{Query: q.Query, KBName: "eval", TopK: &k}); err != nil {
				b.Fatal(err)
			}
			out = append(out, time.Since(start))
		}
		return out
	}
	for _, v := range variants { // warm query vectors, word vectors and Weaviate
		searchAll(v.r)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		fmt.Printf("rag_search latency at the service, %d questions, top_k %d, %d chunks, uncached, sequential:\n",
			len(qs), k, s.ChunkCount(b, "eval", ""))
		var plain time.Duration
		for _, v := range variants {
			l := searchAll(v.r)
			p50, p95 := pct(l, 0.5), pct(l, 0.95)
			if v.name == "plain-hybrid" {
				plain = p50
			}
			fmt.Printf("  %-20s p50 %6.2f ms  p95 %6.2f ms  p50 ratio to plain %.2f\n", v.name, ms(p50), ms(p95), float64(p50)/float64(plain))
			b.ReportMetric(ms(p50), v.name+"-p50-ms")
		}
	}
}

func with(r search.Retrieval, f func(*search.Retrieval)) search.Retrieval {
	f(&r)
	return r
}

func pct(l []time.Duration, p float64) time.Duration {
	s := append([]time.Duration(nil), l...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[min(len(s)-1, int(float64(len(s))*p))]
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
