// Command bm25exp is a BM25 experiment (docs/PERFORMANCE.md):
// right after a write, does Weaviate's top-5 BM25 agree with an exhaustive
// search, and how does BM25 latency grow with the namespace — for the
// Weaviate at -http/-grpc, and interleaved with a second one (-http2/-grpc2,
// e.g. the same release with BlockMax WAND on). Start each Weaviate with
// scripts/bm25-weaviate.sh. The corpus is Go's language spec, chunked as
// ragd chunks it, copied under new document ids until each step is reached.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"ragd"
	"ragd/embed"
	"ragd/ingest"
	"ragd/store"
)

func main() {
	httpURL := flag.String("http", "", "")
	grpcAddr := flag.String("grpc", "", "")
	steps := flag.String("steps", "", "chunk counts to grow to, comma separated")
	http2 := flag.String("http2", "", "a second Weaviate, grown and queried interleaved with the first")
	grpc2 := flag.String("grpc2", "", "")
	glove := flag.String("glove", "data/models/glove-sif-100d.bin", "the GloVe model file (make deps fetches it)")
	flag.Parse()
	ctx := context.Background()
	g, err := embed.LoadGloVe(*glove)
	check(err)
	st, err := store.Open(ctx, store.Config{URL: *httpURL, GRPCAddr: *grpcAddr, Collection: "Exp", BatchSize: 200, Timeout: time.Minute}, g.Name(), g.Dimension())
	check(err)
	var st2 *store.Store
	if *http2 != "" {
		st2, err = store.Open(ctx, store.Config{URL: *http2, GRPCAddr: *grpc2, Collection: "Exp", BatchSize: 200, Timeout: time.Minute}, g.Name(), g.Dimension())
		check(err)
	}
	data, _ := os.ReadFile(filepath.Join(runtime.GOROOT(), "doc", "go_spec.html"))
	l, err := ingest.Parse(data, ragd.SourceHTML, "go_spec.html")
	check(err)
	pieces := ingest.Chunk(l, ingest.ChunkOptions{Tokens: 256, Overlap: 32})
	texts := make([]string, len(pieces))
	for i, p := range pieces {
		texts[i] = p.Path + "\n" + p.Text
	}
	vecs, err := g.Embed(ctx, texts)
	check(err)
	mk := func(copy int) []ragd.Chunk {
		out := make([]ragd.Chunk, len(pieces))
		doc := fmt.Sprintf("doc%d", copy)
		for i, p := range pieces {
			out[i] = ragd.Chunk{ID: ragd.ChunkID(doc, "h", i), DocumentID: doc, ContentHash: "h", Index: i, Text: p.Text,
				Path: p.Path, Source: "x", SourceType: ragd.SourceHTML, Timestamp: time.Now(), Vector: vecs[i], Tags: []string{}}
		}
		return out
	}
	check(st.Upsert(ctx, "t", mk(0)))
	queries := []string{}
	for i := 0; i < len(pieces) && len(queries) < 60; i += len(pieces) / 60 {
		w := strings.Fields(pieces[i].Text)
		if len(w) > 6 {
			queries = append(queries, strings.Join(w[2:5], " "))
		}
	}
	wrong, scoreWrong := 0, 0
	for _, q := range queries {
		top := ids(must(st.Search(ctx, "t", ragd.ChunkQuery{Text: q, Mode: ragd.ModeKeyword, Limit: 5})))
		all := ids(must(st.Search(ctx, "t", ragd.ChunkQuery{Text: q, Mode: ragd.ModeKeyword, Limit: 1000})))
		if !slices.Equal(top, all[:min(5, len(all))]) {
			wrong++
			ts := must(st.Search(ctx, "t", ragd.ChunkQuery{Text: q, Mode: ragd.ModeKeyword, Limit: 5}))
			as := must(st.Search(ctx, "t", ragd.ChunkQuery{Text: q, Mode: ragd.ModeKeyword, Limit: 1000}))
			if scoresDiffer(ts, as) {
				scoreWrong++
				if scoreWrong <= 3 {
					fmt.Printf("  %q top5 %v\n   exhaustive %v\n", q, scores(ts), scores(as[:min(5, len(as))]))
				}
			}
		}
	}
	fmt.Printf("right after writing %d chunks: top-5 ids differ from exhaustive on %d of %d queries, scores differ on %d\n", len(pieces), wrong, len(queries), scoreWrong)
	if *steps == "" {
		return
	}
	n, copies := len(pieces), 1
	for _, f := range strings.Split(*steps, ",") {
		var target int
		fmt.Sscan(f, &target)
		for n < target {
			check(st.Upsert(ctx, "t", mk(copies)))
			if st2 != nil {
				check(st2.Upsert(ctx, "t", mk(copies)))
			}
			copies++
			n += len(pieces)
		}
		time.Sleep(5 * time.Second)
		var lat, lat2 []time.Duration
		for r := 0; r < 5; r++ {
			for _, q := range queries {
				t0 := time.Now()
				must(st.Search(ctx, "t", ragd.ChunkQuery{Text: q, Mode: ragd.ModeKeyword, Limit: 5}))
				lat = append(lat, time.Since(t0))
				if st2 != nil {
					t0 = time.Now()
					must(st2.Search(ctx, "t", ragd.ChunkQuery{Text: q, Mode: ragd.ModeKeyword, Limit: 5}))
					lat2 = append(lat2, time.Since(t0))
				}
			}
		}
		slices.Sort(lat)
		fmt.Printf("%d chunks: BM25 limit 5 p50 %s p99 %s", n, lat[len(lat)/2].Round(10*time.Microsecond), lat[len(lat)*99/100].Round(10*time.Microsecond))
		if st2 != nil {
			slices.Sort(lat2)
			fmt.Printf(" | second: p50 %s p99 %s", lat2[len(lat2)/2].Round(10*time.Microsecond), lat2[len(lat2)*99/100].Round(10*time.Microsecond))
		}
		fmt.Println()
	}
}

func ids(h []ragd.Hit) []string {
	out := make([]string, len(h))
	for i, x := range h {
		out[i] = x.ID
	}
	return out
}

func must(h []ragd.Hit, err error) []ragd.Hit { check(err); return h }

func check(err error) {
	if err != nil {
		fmt.Println("error:", err)
		os.Exit(1)
	}
}

func scores(h []ragd.Hit) []float64 {
	out := make([]float64, len(h))
	for i, x := range h {
		out[i] = float64(x.Score)
	}
	return out
}

func scoresDiffer(a, b []ragd.Hit) bool {
	b = b[:min(len(a), len(b))]
	if len(a) != len(b) {
		return true
	}
	for i := range a {
		d := float64(a[i].Score - b[i].Score)
		if d > 1e-4 || d < -1e-4 {
			return true
		}
	}
	return false
}
