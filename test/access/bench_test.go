package access_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"testing"
	"time"

	"github.com/weaviate/weaviate-go-client/v5/weaviate"
	"github.com/weaviate/weaviate-go-client/v5/weaviate/filters"
	"github.com/weaviate/weaviate-go-client/v5/weaviate/graphql"
	"github.com/weaviate/weaviate-go-client/v5/weaviate/grpc"
	"github.com/weaviate/weaviate-go-client/v5/weaviate/grpc/common"
	pb "github.com/weaviate/weaviate/grpc/generated/protocol/v1"
	"google.golang.org/protobuf/proto"

	"ragd"
	"ragd/internal/adapter/embed"
	"ragd/internal/eval"
	"ragd/internal/platform/config"
	"ragd/internal/testkit/ragdproc"
	"ragd/internal/testkit/stack"
	"ragd/internal/testkit/testenv"
)

var benchQueries = []string{
	"happens before relation", "data race definition", "channel send and receive", "mutex unlock", "goroutine creation",
	"atomic operations", "buffered reader", "zip archive entries", "compare byte slices", "parse command line flags",
	"format verbs", "read a file", "http request headers", "json encoding of structs", "regular expression syntax",
	"sort a slice", "string builder", "time durations", "template execution", "unicode code points",
}

// BenchmarkAccessFilter measures what document access costs a search,
// with ragd as its own process (as users run it) called over loopback:
// rag_search over REST (hybrid, expansion off, uncached, top_k 5) for a
// key in group g0 — every document of a namespace built from this
// machine's Go docs and module READMEs is shared with one of g0 … g9, g0's
// holding a tenth of the chunks — and for an operator key that sees all,
// against raw Weaviate hybrid queries with the same vectors, alpha, limit
// and tenant, with ragd's access filter and without, and against the same
// filtered query sent through the hop floor (internal/hopfloor: a process
// that forwards the query's bytes to Weaviate and the reply's back over a
// transport tuned as ragd's, the least any server in between costs). The
// five run interleaved query by query at concurrency 1 and 16, three
// rounds each; the ratios are the medians over rounds with their range.
// Targets: 10 % key ≤ 1.15× raw with the filter. RAGD_BENCH_PROFILE=FILE
// writes ragd's CPU profile of the run.
func BenchmarkAccessFilter(b *testing.B) {
	root := b.TempDir()
	buildBenchCorpus(b, root)
	cfgFile := filepath.Join(b.TempDir(), "config.yaml")
	yaml := fmt.Sprintf("auth:\n  mode: static-token\n  keys:\n    - {name: ops, token: %s, groups: [\"*\"]}\n    - {name: g0, token: %s, groups: [g0]}\n", opsToken, engToken)
	if err := os.WriteFile(cfgFile, []byte(yaml), 0o600); err != nil {
		b.Fatal(err)
	}
	settings := map[string]string{"RAGD_CONFIG": cfgFile, "RAGD_INGEST_ROOTS": root, "RAGD_CACHE_ENABLED": "false"}
	if prof := os.Getenv("RAGD_BENCH_PROFILE"); prof != "" {
		settings["RAGD_CPU_PROFILE"] = prof // ragd's CPU profile of the run
	}
	p := stack.StartProcess(b, settings)
	glove, err := embed.LoadGloVe(testenv.GloVePath(b))
	if err != nil {
		b.Fatal(err)
	}
	benchAccess(b, root, p, p.URL, p.Config, glove)
}

// BenchmarkAccessFilterInProcess is BenchmarkAccessFilter with ragd in
// the benchmark's process (its REST server on loopback), where the floor
// and ragd share one heap and scheduler.
func BenchmarkAccessFilterInProcess(b *testing.B) {
	root := b.TempDir()
	buildBenchCorpus(b, root)
	cfg := stack.Config(b, root)
	cfg.Cache.Enabled = false
	cfg.Auth.Mode = "static-token"
	cfg.Auth.Keys = []config.AuthKey{{Name: "ops", Token: opsToken, Groups: []string{"*"}}, {Name: "g0", Token: engToken, Groups: []string{"g0"}}}
	s := stack.Start(b, cfg, true)
	benchAccess(b, root, s, s.URL, cfg, s.Search.Embedder)
}

// buildBenchCorpus writes three of the eval corpora and the spec pages
// under root.
func buildBenchCorpus(b *testing.B, root string) {
	src := eval.Sources{GOROOT: runtime.GOROOT(), GOMODCACHE: testenv.ModCache(b)}
	for _, c := range eval.Corpora {
		if c.Name == "stdlib" || c.Name == "gomod" || c.Name == "moddocs" {
			if err := c.Build(src, filepath.Join(root, c.Name)); err != nil {
				b.Fatal(err)
			}
		}
	}
	stack.CopySpecDocs(b, root)
}

// benchAccess indexes root into namespace bench of the ragd at base,
// shares a tenth of it with g0 and measures (BenchmarkAccessFilter).
func benchAccess(b *testing.B, root string, r requester, base string, cfg config.Config, emb ragd.Embedder) {
	if resp := r.DoAs(b, opsToken, http.MethodPost, "/tools/rag_index_directory", map[string]any{"directory_path": root, "kb_name": "bench", "wait": true}); resp.Status != 200 {
		b.Fatalf("index: %d %s", resp.Status, resp.Body)
	}
	visible, docs, chunks := shareTenth(b, r)
	raw, vectors := rawClient(b, emb)
	filter := filters.Where().WithPath([]string{"access"}).WithOperator(filters.ContainsAny).
		WithValueText(ragd.GroupAudience([]string{"g0"}).StoreFilter()...)
	floor, err := ragdproc.StartHopFloor(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(floor.Stop)
	fs := []func(q string){ // in the order of the sides (rawSide …)
		rawHybrid(b, raw, cfg, vectors, nil), rawHybrid(b, raw, cfg, vectors, filter),
		restSearch(b, base, opsToken), restSearch(b, base, engToken),
		floorHybrid(b, floor.URL, cfg, vectors, filter),
	}
	for _, f := range fs { // warm connections, query vectors and Weaviate
		interleaved(4, 1, f)
	}
	b.ResetTimer()
	for range b.N {
		fmt.Printf("access filter: %d documents, %d chunks; the g0 key sees %d chunks (%.1f %%); rag_search hybrid, top_k 5, expansion off, uncached:\n",
			docs, chunks, visible, 100*float64(visible)/float64(chunks))
		for _, c := range []int{1, 16} {
			var p50 [sides][]float64 // per side, each round's p50 in ms
			for range 3 {
				l := interleaved(c, samplesPerQuery, fs...)
				for i := range l {
					p50[i] = append(p50[i], ms(pct(l[i], 0.5)))
				}
			}
			// ratio is side a's p50 over side b's, round by round.
			ratio := func(a, b int) []float64 {
				r := make([]float64, len(p50[a]))
				for i := range r {
					r[i] = p50[a][i] / p50[b][i]
				}
				return r
			}
			tenVsFiltered, allVsRaw, tenVsFloor := ratio(keySide, rawFilterSide), ratio(operatorSide, rawSide), ratio(keySide, floorSide)
			fmt.Printf("  c%-2d p50 ms: raw %.2f, raw+filter %.2f, ragd operator %.2f, ragd 10%% key %.2f | 10%% key / raw+filter %s (target ≤ 1.15), operator / raw %s, filter in Weaviate %s\n",
				c, median(p50[rawSide]), median(p50[rawFilterSide]), median(p50[operatorSide]), median(p50[keySide]),
				spread(tenVsFiltered), spread(allVsRaw), spread(ratio(rawFilterSide, rawSide)))
			fmt.Printf("       hop floor + filter %.2f ms: hop floor / raw+filter %s, 10%% key / hop floor+filter %s\n",
				median(p50[floorSide]), spread(ratio(floorSide, rawFilterSide)), spread(tenVsFloor))
			b.ReportMetric(median(tenVsFiltered), fmt.Sprintf("p50-10pct-vs-raw-filtered-c%d", c))
			b.ReportMetric(median(allVsRaw), fmt.Sprintf("p50-all-vs-raw-c%d", c))
			b.ReportMetric(median(tenVsFloor), fmt.Sprintf("p50-10pct-vs-hop-floor-c%d", c))
		}
	}
}

// The sides benchAccess measures, in the order of its fs.
const (
	rawSide       = iota // raw Weaviate hybrid
	rawFilterSide        // raw, with ragd's filter for g0
	operatorSide         // ragd, the operator key
	keySide              // ragd, the g0 key
	floorSide            // the hop floor, with the filter
	sides
)

// samplesPerQuery is how often a round sends each query to each side: a
// round's p50 over 200 searches of 20 queries moved by a few per cent from
// round to round where 60 moved it by up to 15.
const samplesPerQuery = 10

// requester is a ragd to call: an in-process stack or a process.
type requester interface {
	DoAs(t testing.TB, token, method, path string, body any) stack.Response
}

// shareTenth shares every document with one of g0 … g9 (PATCH, as the
// operator), g0 getting documents in list order while it holds under a
// tenth of the chunks, and returns the chunks g0 sees, the documents and
// the chunks.
func shareTenth(b *testing.B, s requester) (visible, docs, chunks int) {
	r := s.DoAs(b, opsToken, http.MethodGet, "/documents?kb_name=bench&limit=1000", nil)
	list, _ := r.JSON["documents"].([]any)
	for _, d := range list {
		chunks += int(d.(map[string]any)["chunks"].(float64))
	}
	for i, d := range list {
		doc := d.(map[string]any)
		id, n := doc["document_id"].(string), int(doc["chunks"].(float64))
		group := fmt.Sprintf("g%d", 1+i%9)
		if visible+n <= chunks/10 {
			group, visible = "g0", visible+n
		}
		if p := s.DoAs(b, opsToken, http.MethodPatch, "/documents/"+id, map[string]any{"access": []string{group}}); p.Status != 200 {
			b.Fatalf("PATCH %s: %d %s", id, p.Status, p.Body)
		}
	}
	return visible, len(list), chunks
}

// rawClient is a Weaviate client of the test services searching over
// gRPC as ragd does, and the benchmark queries' vectors by emb.
func rawClient(b testing.TB, emb ragd.Embedder) (*weaviate.Client, map[string][]float32) {
	u, _ := url.Parse(testenv.WeaviateURL(b))
	raw, err := weaviate.NewClient(weaviate.Config{Host: u.Host, Scheme: u.Scheme, GrpcConfig: &grpc.Config{Host: testenv.WeaviateGRPC(b)}})
	if err != nil {
		b.Fatal(err)
	}
	vectors := map[string][]float32{}
	for _, q := range benchQueries {
		v, err := emb.Embed(context.Background(), []string{q})
		if err != nil {
			b.Fatal(err)
		}
		vectors[q] = v[0]
	}
	return raw, vectors
}

// benchProperties are the properties rag_search fetches.
var benchProperties = []string{"text", "document_id", "source", "source_type", "content_hash", "chunk_index", "path", "level",
	"summary", "page", "timestamp", "tags", "ocr", "access"}

// rawHybrid is the query rag_search sends, fetching the properties it
// returns, with where as its filter.
func rawHybrid(b testing.TB, raw *weaviate.Client, cfg config.Config, vectors map[string][]float32, where *filters.WhereBuilder) func(string) {
	return func(q string) {
		req := raw.Experimental().Search().WithCollection(cfg.Weaviate.Collection).WithTenant("bench").WithLimit(5).
			WithProperties(benchProperties...).
			WithMetadata(&graphql.Metadata{ID: true, Score: true}).
			WithHybrid((&graphql.HybridArgumentBuilder{}).WithQuery(q).WithVector(vectors[q]).WithAlpha(float32(cfg.Search.Alpha)).
				WithProperties([]string{"text", "path"}).WithFusionType(graphql.RelativeScore))
		if where != nil {
			req = req.WithWhere(where)
		}
		if _, err := req.Do(context.Background()); err != nil {
			b.Fatal(err)
		}
	}
}

// floorHybrid is rawHybrid's query, built as the Weaviate client builds it,
// sent through the hop floor at base.
func floorHybrid(b testing.TB, base string, cfg config.Config, vectors map[string][]float32, where *filters.WhereBuilder) func(string) {
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 32}}
	return func(q string) {
		alpha := float32(cfg.Search.Alpha)
		req := &pb.SearchRequest{Collection: cfg.Weaviate.Collection, Tenant: "bench", Limit: 5,
			Properties: &pb.PropertiesRequest{NonRefProperties: benchProperties},
			Metadata:   &pb.MetadataRequest{Uuid: true, Score: true},
			HybridSearch: &pb.Hybrid{Query: q, Properties: []string{"text", "path"}, Alpha: alpha, AlphaParam: &alpha, //nolint:staticcheck // both, as the client sends
				Vectors: []*pb.Vectors{common.GetVector("", vectors[q])}, FusionType: pb.Hybrid_FUSION_TYPE_RELATIVE_SCORE},
			Uses_123Api: true, Uses_125Api: true, Uses_127Api: true}
		if where != nil {
			req.Filters = where.ToGRPC()
		}
		body, err := proto.Marshal(req)
		if err != nil {
			b.Fatal(err)
		}
		resp, err := client.Post(base+"/search", "application/x-protobuf", bytes.NewReader(body))
		if err != nil {
			b.Fatal(err)
		}
		answer, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		var reply pb.SearchReply
		if err == nil && resp.StatusCode == http.StatusOK {
			err = proto.Unmarshal(answer, &reply)
		}
		if err != nil || resp.StatusCode != http.StatusOK || len(reply.Results) == 0 {
			b.Fatalf("hop floor %q: %d %v, %d results: %.200s", q, resp.StatusCode, err, len(reply.Results), answer)
		}
	}
}

func restSearch(b testing.TB, base, token string) func(string) {
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 32}}
	return func(q string) {
		body, _ := json.Marshal(map[string]any{"query": q, "top_k": 5, "kb_name": "bench"})
		req, _ := http.NewRequest(http.MethodPost, base+"/tools/rag_search", bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Bearer "+token)
		resp, err := client.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		var out struct{ Count int }
		_ = json.NewDecoder(resp.Body).Decode(&out)
		resp.Body.Close()
		if resp.StatusCode != 200 || out.Count == 0 {
			b.Fatalf("rag_search %q: %d, %d results", q, resp.StatusCode, out.Count)
		}
	}
}

// interleaved is stack.Interleaved over benchQueries.
func interleaved(c, rounds int, fs ...func(q string)) [][]time.Duration {
	return stack.Interleaved(c, rounds, benchQueries, fs...)
}

func pct(l []time.Duration, p float64) time.Duration {
	s := slices.Clone(l)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[min(len(s)-1, int(float64(len(s))*p))]
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[len(s)/2]
}

// spread is a median with its range.
func spread(xs []float64) string {
	return fmt.Sprintf("%.2f (%.2f–%.2f)", median(xs), slices.Min(xs), slices.Max(xs))
}
