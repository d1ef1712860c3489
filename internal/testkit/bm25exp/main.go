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
	"ragd/internal/adapter/embed"
	"ragd/internal/ingest"
	"ragd/internal/store"
)

// experiment holds the stores and the corpus the steps share.
type experiment struct {
	st, st2 *store.Store // st2 is nil without -http2
	pieces  []ingest.Piece
	vecs    [][]float32
	queries []string
}

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
	open := func(url, grpc string) *store.Store {
		st, err := store.Open(ctx, store.Config{URL: url, GRPCAddr: grpc, Collection: "Exp", BatchSize: 200, Timeout: time.Minute}, g.Name(), g.Dimension())
		check(err)
		return st
	}
	x := &experiment{st: open(*httpURL, *grpcAddr)}
	if *http2 != "" {
		x.st2 = open(*http2, *grpc2)
	}
	x.loadCorpus(ctx, g)
	check(x.st.Upsert(ctx, "t", x.copyOf(0)))
	x.agreement(ctx)
	if *steps != "" {
		x.grow(ctx, strings.Split(*steps, ","))
	}
}

// loadCorpus chunks Go's spec as ragd does, embeds the chunks and picks
// the queries: three words from about 60 chunks.
func (x *experiment) loadCorpus(ctx context.Context, g *embed.GloVe) {
	data, _ := os.ReadFile(filepath.Join(runtime.GOROOT(), "doc", "go_spec.html"))
	l, err := ingest.Parse(data, ragd.SourceHTML, "go_spec.html")
	check(err)
	x.pieces = ingest.Chunk(l, ingest.ChunkOptions{Tokens: 256, Overlap: 32})
	texts := make([]string, len(x.pieces))
	for i, p := range x.pieces {
		texts[i] = p.Path + "\n" + p.Text
	}
	x.vecs, err = g.Embed(ctx, texts)
	check(err)
	for i := 0; i < len(x.pieces) && len(x.queries) < 60; i += len(x.pieces) / 60 {
		w := strings.Fields(x.pieces[i].Text)
		if len(w) > 6 {
			x.queries = append(x.queries, strings.Join(w[2:5], " "))
		}
	}
}

// copyOf is the corpus as document copy n.
func (x *experiment) copyOf(n int) []ragd.Chunk {
	out := make([]ragd.Chunk, len(x.pieces))
	doc := fmt.Sprintf("doc%d", n)
	for i, p := range x.pieces {
		out[i] = ragd.Chunk{ID: ragd.ChunkID(doc, "h", i), DocumentID: doc, ContentHash: "h", Index: i, Text: p.Text,
			Path: p.Path, Source: "x", SourceType: ragd.SourceHTML, Timestamp: time.Now(), Vector: x.vecs[i], Tags: []string{}}
	}
	return out
}

// keyword runs one BM25 search of the first store.
func (x *experiment) keyword(ctx context.Context, q string, limit int) []ragd.Hit {
	return must(x.st.Search(ctx, "t", ragd.ChunkQuery{Text: q, Mode: ragd.ModeKeyword, Limit: limit}))
}

// agreement compares, right after the write, each query's top 5 with the
// first 5 of an exhaustive search, by ids and by scores.
func (x *experiment) agreement(ctx context.Context) {
	wrong, scoreWrong := 0, 0
	for _, q := range x.queries {
		top, all := x.keyword(ctx, q, 5), x.keyword(ctx, q, 1000)
		if slices.Equal(ids(top), ids(all[:min(5, len(all))])) {
			continue
		}
		wrong++
		if scoresDiffer(top, all) {
			scoreWrong++
			if scoreWrong <= 3 {
				fmt.Printf("  %q top5 %v\n   exhaustive %v\n", q, scores(top), scores(all[:min(5, len(all))]))
			}
		}
	}
	fmt.Printf("right after writing %d chunks: top-5 ids differ from exhaustive on %d of %d queries, scores differ on %d\n",
		len(x.pieces), wrong, len(x.queries), scoreWrong)
}

// grow copies the corpus until each step's chunk count is reached and
// prints BM25 latency there, of both stores, interleaved query by query.
func (x *experiment) grow(ctx context.Context, steps []string) {
	n, copies := len(x.pieces), 1
	for _, f := range steps {
		var target int
		fmt.Sscan(f, &target)
		for ; n < target; copies, n = copies+1, n+len(x.pieces) {
			check(x.st.Upsert(ctx, "t", x.copyOf(copies)))
			if x.st2 != nil {
				check(x.st2.Upsert(ctx, "t", x.copyOf(copies)))
			}
		}
		time.Sleep(5 * time.Second)
		var lat, lat2 []time.Duration
		for range 5 {
			for _, q := range x.queries {
				lat = append(lat, timed(func() { x.keyword(ctx, q, 5) }))
				if x.st2 != nil {
					lat2 = append(lat2, timed(func() { must(x.st2.Search(ctx, "t", ragd.ChunkQuery{Text: q, Mode: ragd.ModeKeyword, Limit: 5})) }))
				}
			}
		}
		fmt.Printf("%d chunks: BM25 limit 5 %s", n, percentiles(lat))
		if x.st2 != nil {
			fmt.Printf(" | second: %s", percentiles(lat2))
		}
		fmt.Println()
	}
}

func timed(f func()) time.Duration {
	t0 := time.Now()
	f()
	return time.Since(t0)
}

// percentiles are p50 and p99 of lat (sorted in place).
func percentiles(lat []time.Duration) string {
	slices.Sort(lat)
	return fmt.Sprintf("p50 %s p99 %s", lat[len(lat)/2].Round(10*time.Microsecond), lat[len(lat)*99/100].Round(10*time.Microsecond))
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
