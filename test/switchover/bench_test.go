package switchover

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"ragd"
	"ragd/internal/adapter/embed"
	"ragd/internal/platform/config"
	"ragd/internal/store/live"
	"ragd/internal/testkit/stack"
	"ragd/internal/testkit/standin"
)

// The benchmark's corpus and pacing.
const (
	benchNamespaces = 2
	benchDocs       = 50 // per namespace
	benchChunks     = 20 // per document: 2 × 50 × 20 = 2,000 chunks
	// benchBatch is embedders.<name>.batch_size: the copy's page, one
	// embedding request.
	benchBatch = 32
	// benchDelay is the stand-in's time per request, whatever its size
	// (RAGD_BENCH_SWITCH_DELAY overrides it): a hosted embedding API's
	// round trip for a batch, so the figures are about pacing.
	benchDelay = 250 * time.Millisecond
	// benchConcurrency is embeddersvc.Embedders.Concurrency as app wires it.
	benchConcurrency = 4
	benchRounds      = 3
	// benchIdle is how long the search load runs alone in each round,
	// for the p50 before a switch.
	benchIdle = 2 * time.Second
	// benchSearchEvery paces each of the two searching clients.
	benchSearchEvery = 200 * time.Millisecond
)

// benchOnce runs the heavy part once; benchReport reports its figures,
// again in a later invocation (b.N > 1).
var (
	benchOnce   sync.Once
	benchReport func(b *testing.B)
)

// BenchmarkSwitch measures an embedder switch's copy against the
// embedder's own throughput for the same batches, and the search latency
// during the copy against before it.
//
// One stack holds 2,000 chunks over two namespaces, written straight to
// the store with GloVe vectors. Two OpenAI-compatible stand-ins, alt1 and
// alt2, of the same dimension, batch size and per-request delay, are
// configured under embedders. After an unmeasured switch default → alt1,
// each round switches to the other stand-in (alt1 → alt2 → alt1 …) and,
// interleaved with it (the order alternates by round), runs the floor:
// the same chunks' embedding texts, in the pages the copy reads (each
// namespace in id order, batch_size at a time), embedded by embed.OpenAI
// against that stand-in with the copy's concurrency (4), nothing stored.
//
//   - switch_chunks/s: the chunks copied over the copy phase, which runs
//     from the first embedding request of the copy arriving at the target
//     stand-in (the probe at POST is before it; it excludes the fixed
//     wait-for-processes phase, at least two state polls, and the copy's
//     first Weaviate scan) to the switch record showing Done == Total
//     (polled from Redis every 5 ms), the last page written and
//     checkpointed.
//   - floor_chunks/s: the same chunks over the floor's wall time.
//   - store_chunks/s: the floor's embedded pages written through the
//     store alone, 4 at once, to a scratch namespace (dropped after): the
//     rate Weaviate's writes allow any copy.
//   - ratio: switch/floor per round, the median reported, with the range.
//   - switch_wall_s: POST /embedder/switch until the switch record is
//     gone (cut over, every process following, old collection dropped).
//   - search p50/p95: two clients each send a hybrid rag_search (cache off)
//     every 200 ms throughout; "before" is the searches started in each
//     round's first two seconds, with no switch and no floor running
//     (after the previous round's switch: the "after" of that one),
//     "during" those started within a copy phase. Each round first runs
//     every topic once, unmeasured: query vectors are cached per
//     embedder, so right after a cutover the first search of each topic
//     would wait for the new embedder, and a user's repeated questions
//     would not.
func BenchmarkSwitch(b *testing.B) {
	benchOnce.Do(func() { benchReport = runSwitchBench(b) })
	for range b.N {
	}
	benchReport(b)
}

func runSwitchBench(b *testing.B) func(b *testing.B) {
	delay := benchDelay
	if v := os.Getenv("RAGD_BENCH_SWITCH_DELAY"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil {
			b.Fatalf("RAGD_BENCH_SWITCH_DELAY: %v", err)
		}
		delay = d
	}
	cfg := stack.Config(b)
	cfg.Cache.Enabled = false
	cfg.Resilience.CircuitOpenFor = time.Second
	alts := map[string]*standin.Embeddings{}
	cfg.Embedders = map[string]config.Embed{}
	for _, name := range []string{"alt1", "alt2"} {
		e := standin.NewEmbeddings(b, name+"-embed", altDims)
		e.SetDelay(delay)
		alts[name] = e
		cfg.Embedders[name] = config.Embed{Provider: "openai", BaseURL: e.URL, Model: e.Model, Dimension: altDims, BatchSize: benchBatch}
	}
	s := stack.Start(b, cfg, true)
	pages := writeBenchCorpus(b, s)
	total := 0
	for _, p := range pages {
		total += len(p)
	}

	l := startPacedLoad(s.URL)
	defer l.stop()
	// The first switch leaves GloVe; it warms Weaviate and the stand-ins.
	if sw := benchSwitch(b, s, alts["alt1"], "alt1"); sw.total != total {
		b.Fatalf("the first switch copied %d chunks, the store holds %d", sw.total, total)
	}

	var ratios, switchRates, floorRates, storeRates, walls []float64
	var idle, copying []window
	liveName := "alt1"
	for r := range benchRounds {
		to := map[string]string{"alt1": "alt2", "alt2": "alt1"}[liveName]
		warmQueries(b, s.URL)
		start := time.Now()
		time.Sleep(benchIdle)
		idle = append(idle, window{start, time.Now()})
		var sw switchRun
		var floor, write time.Duration
		floors := func() {
			var embedded [][]ragd.Chunk
			floor, embedded = benchFloor(b, alts[to], pages)
			write = benchStore(b, s, embedded)
		}
		if r%2 == 0 {
			floors()
			sw = benchSwitch(b, s, alts[to], to)
		} else {
			sw = benchSwitch(b, s, alts[to], to)
			floors()
		}
		liveName = to
		if sw.total != total {
			b.Fatalf("round %d: the switch copied %d chunks, the store holds %d", r, sw.total, total)
		}
		copying = append(copying, window{sw.copyStart, sw.copyEnd})
		switchRate := float64(total) / sw.copyEnd.Sub(sw.copyStart).Seconds()
		floorRate := float64(total) / floor.Seconds()
		storeRate := float64(total) / write.Seconds()
		switchRates, floorRates = append(switchRates, switchRate), append(floorRates, floorRate)
		storeRates = append(storeRates, storeRate)
		ratios = append(ratios, switchRate/floorRate)
		walls = append(walls, sw.wall.Seconds())
		b.Logf("round %d → %s: copy %s (%.0f chunks/s), floor %s (%.0f chunks/s), ratio %.2f, store alone %.0f chunks/s, switch job %s",
			r+1, to, sw.copyEnd.Sub(sw.copyStart).Round(time.Millisecond), switchRate, floor.Round(time.Millisecond),
			floorRate, switchRate/floorRate, storeRate, sw.wall.Round(time.Millisecond))
	}
	lats, failures := l.stop()
	if len(failures) > 0 {
		b.Fatalf("%d searches failed, first: %s", len(failures), failures[0])
	}
	before, during := lats.within(idle), lats.within(copying)
	if len(before) == 0 || len(during) == 0 {
		b.Fatalf("searches: %d before, %d during a copy", len(before), len(during))
	}
	summary := fmt.Sprintf("switch: %d chunks, batch %d, %s a request, concurrency %d, %d rounds: copy %.0f chunks/s, floor %.0f chunks/s, "+
		"ratio %.2f (%.2f–%.2f, target ≥ 0.80), store alone %.0f chunks/s; switch job %.1f s (%.1f–%.1f); search p50 %.1f ms before, %.1f ms during the copy "+
		"(p95 %.1f, %.1f; %d and %d searches)",
		total, benchBatch, delay, benchConcurrency, benchRounds, median(switchRates), median(floorRates),
		median(ratios), slices.Min(ratios), slices.Max(ratios), median(storeRates), median(walls), slices.Min(walls), slices.Max(walls),
		ms(pct(before, 0.5)), ms(pct(during, 0.5)), ms(pct(before, 0.95)), ms(pct(during, 0.95)), len(before), len(during))
	return func(b *testing.B) {
		b.ReportMetric(median(ratios), "ratio")
		b.ReportMetric(slices.Min(ratios), "ratio_min")
		b.ReportMetric(slices.Max(ratios), "ratio_max")
		b.ReportMetric(median(switchRates), "switch_chunks/s")
		b.ReportMetric(median(floorRates), "floor_chunks/s")
		b.ReportMetric(median(storeRates), "store_chunks/s")
		b.ReportMetric(median(walls), "switch_wall_s")
		b.ReportMetric(ms(pct(before, 0.5)), "search_p50_before_ms")
		b.ReportMetric(ms(pct(during, 0.5)), "search_p50_during_ms")
		b.ReportMetric(ms(pct(before, 0.95)), "search_p95_before_ms")
		b.ReportMetric(ms(pct(during, 0.95)), "search_p95_during_ms")
		b.Log(summary)
	}
}

// writeBenchCorpus stores the corpus with the live (GloVe) embedder's
// vectors and returns it in the pages the copy reads: each namespace in
// chunk id order, batch_size at a time.
func writeBenchCorpus(b testing.TB, s *stack.Stack) [][]ragd.Chunk {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(1, 2))
	words := strings.Fields("the of a harbour stone wind light northern old river keeper tower winter summer " +
		"map chart rope sail island coast storm night morning bell field road bridge village market song")
	var pages [][]ragd.Chunk
	for n := range benchNamespaces {
		ns := fmt.Sprintf("bench%d", n)
		var all []ragd.Chunk
		for d := range benchDocs {
			id, hash := fmt.Sprintf("%s-doc-%d", ns, d), "v1"
			chunks := make([]ragd.Chunk, benchChunks)
			texts := make([]string, benchChunks)
			for i := range chunks {
				topic := topics[(d+i)%len(topics)]
				var sb strings.Builder
				fmt.Fprintf(&sb, "Part %d of document %d is about %s.", i, d, topic)
				for range 60 {
					sb.WriteString(" " + words[rng.IntN(len(words))])
				}
				texts[i] = sb.String()
				chunks[i] = ragd.Chunk{ID: ragd.ChunkID(id, hash, i), DocumentID: id, Namespace: ns, Source: "text://" + id,
					SourceType: ragd.SourceText, ContentHash: hash, Index: i, Text: texts[i], Timestamp: time.Now().UTC()}
			}
			vectors, err := s.Search.Embedder.Embed(ctx, texts)
			if err != nil {
				b.Fatal(err)
			}
			for i := range chunks {
				chunks[i].Vector = vectors[i]
			}
			if err := s.Chunks.Upsert(ctx, ns, chunks); err != nil {
				b.Fatal(err)
			}
			all = append(all, chunks...)
		}
		slices.SortFunc(all, func(x, y ragd.Chunk) int { return strings.Compare(x.ID, y.ID) })
		for start := 0; start < len(all); start += benchBatch {
			pages = append(pages, all[start:min(start+benchBatch, len(all))])
		}
	}
	return pages
}

// benchFloor embeds pages' embedding texts against e with the copy's
// concurrency and returns the wall time and the pages with e's vectors.
func benchFloor(b *testing.B, e *standin.Embeddings, pages [][]ragd.Chunk) (time.Duration, [][]ragd.Chunk) {
	o, err := embed.NewOpenAI(embed.OpenAIConfig{BaseURL: e.URL, Model: e.Model, Dimension: altDims, BatchSize: benchBatch})
	if err != nil {
		b.Fatal(err)
	}
	out := make([][]ragd.Chunk, len(pages))
	elapsed := inParallel(b, len(pages), func(i int) error {
		texts := make([]string, len(pages[i]))
		for j, c := range pages[i] {
			texts[j] = c.EmbeddingText()
		}
		vectors, err := o.Embed(context.Background(), texts)
		if err != nil {
			return err
		}
		out[i] = slices.Clone(pages[i])
		for j := range out[i] {
			out[i][j].Vector = vectors[j]
		}
		return nil
	})
	return elapsed, out
}

// benchStore writes the embedded pages through the store alone, the
// copy's concurrency at once, to a scratch namespace of the live
// collection (the target's dimension; no switch is under way), dropped
// after; it returns the wall time: what Weaviate's writes allow the copy.
func benchStore(b *testing.B, s *stack.Stack, pages [][]ragd.Chunk) time.Duration {
	ctx := context.Background()
	const scratch = "benchscratch"
	elapsed := inParallel(b, len(pages), func(i int) error { return s.Chunks.Upsert(ctx, scratch, pages[i]) })
	if err := s.Chunks.ClearNamespace(ctx, scratch); err != nil {
		b.Fatal(err)
	}
	return elapsed
}

// inParallel runs f(0) … f(n-1), benchConcurrency at once, and returns
// the wall time.
func inParallel(b *testing.B, n int, f func(i int) error) time.Duration {
	work := make(chan int)
	errs := make(chan error, benchConcurrency)
	var wg sync.WaitGroup
	start := time.Now()
	for range benchConcurrency {
		wg.Go(func() {
			for i := range work {
				if err := f(i); err != nil {
					errs <- err
					for range work {
					}
					return
				}
			}
		})
	}
	for i := range n {
		work <- i
	}
	close(work)
	wg.Wait()
	elapsed := time.Since(start)
	select {
	case err := <-errs:
		b.Fatal(err)
	default:
	}
	return elapsed
}

// switchRun is one switch's timings.
type switchRun struct {
	copyStart, copyEnd time.Time
	wall               time.Duration
	total              int
}

// benchSwitch switches to name (whose stand-in is e) and times it.
func benchSwitch(b *testing.B, s *stack.Stack, e *standin.Embeddings, name string) switchRun {
	ctx := context.Background()
	start := time.Now()
	r := s.Do(b, http.MethodPost, "/embedder/switch", map[string]any{"to": name})
	if r.Status != http.StatusAccepted {
		b.Fatalf("POST /embedder/switch %s: %d %s", name, r.Status, r.Body)
	}
	posted := time.Now()
	id := r.JSON["job_id"].(string)
	var run switchRun
	for {
		st, err := s.Live.Records().Load(ctx)
		if err != nil {
			b.Fatal(err)
		}
		now := time.Now()
		if st.Switch == nil || st.Switch.JobID != id {
			run.wall = now.Sub(start)
			break
		}
		if run.copyEnd.IsZero() && st.Switch.Total > 0 && st.Switch.Done == st.Switch.Total {
			run.copyEnd, run.total = now, st.Switch.Total
		}
		if st.Switch.Phase == live.PhaseDropping && run.copyEnd.IsZero() {
			b.Fatalf("switch to %s cut over without its copy seen done: %+v", name, st.Switch)
		}
		if now.Sub(start) > 5*time.Minute {
			b.Fatalf("switch to %s: still %+v", name, st.Switch)
		}
		time.Sleep(5 * time.Millisecond)
	}
	if job := s.WaitJob(b, id, time.Minute); job.Status != ragd.JobCompleted {
		b.Fatalf("switch to %s: %+v", name, job)
	}
	for _, t := range e.Arrivals() {
		if t.After(posted) {
			run.copyStart = t
			break
		}
	}
	if run.copyStart.IsZero() || !run.copyStart.Before(run.copyEnd) {
		b.Fatalf("switch to %s: copy from %s to %s", name, run.copyStart, run.copyEnd)
	}
	return run
}

// window is a span of time searches are counted in.
type window struct{ from, to time.Time }

// sample is one search: when it started and how long it took.
type sample struct {
	at time.Time
	d  time.Duration
}

type samples []sample

// within is the latencies of the searches started in any of ws.
func (ss samples) within(ws []window) []time.Duration {
	var out []time.Duration
	for _, s := range ss {
		for _, w := range ws {
			if !s.at.Before(w.from) && s.at.Before(w.to) {
				out = append(out, s.d)
				break
			}
		}
	}
	return out
}

// pacedLoad is two clients each sending a hybrid rag_search every
// benchSearchEvery, over one HTTP client, through the topics in turn.
type pacedLoad struct {
	done     chan struct{}
	wg       sync.WaitGroup
	mu       sync.Mutex
	samples  samples
	failures []string
}

func startPacedLoad(base string) *pacedLoad {
	l := &pacedLoad{done: make(chan struct{})}
	client := &http.Client{Timeout: 30 * time.Second}
	for w := range 2 {
		l.wg.Go(func() {
			tick := time.NewTicker(benchSearchEvery)
			defer tick.Stop()
			for i := 0; ; i++ {
				select {
				case <-l.done:
					return
				case <-tick.C:
				}
				body, _ := json.Marshal(map[string]any{"query": topics[(i+w)%len(topics)],
					"kb_name": fmt.Sprintf("bench%d", (i+w)%benchNamespaces), "mode": "hybrid", "top_k": 5})
				at := time.Now()
				err := postOK(client, base+"/tools/rag_search", body)
				d := time.Since(at)
				l.mu.Lock()
				if err != nil {
					l.failures = append(l.failures, err.Error())
				} else {
					l.samples = append(l.samples, sample{at, d})
				}
				l.mu.Unlock()
			}
		})
	}
	return l
}

// warmQueries runs one search of every topic (in every namespace),
// unmeasured, so the live embedder's query vectors are cached.
func warmQueries(b *testing.B, base string) {
	client := &http.Client{Timeout: 30 * time.Second}
	inParallel(b, len(topics)*benchNamespaces, func(i int) error {
		body, _ := json.Marshal(map[string]any{"query": topics[i%len(topics)],
			"kb_name": fmt.Sprintf("bench%d", i/len(topics)), "mode": "hybrid", "top_k": 5})
		return postOK(client, base+"/tools/rag_search", body)
	})
}

// stop ends the load (once) and returns what it measured.
func (l *pacedLoad) stop() (samples, []string) {
	select {
	case <-l.done:
	default:
		close(l.done)
	}
	l.wg.Wait()
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.samples, l.failures
}

func postOK(client *http.Client, url string, body []byte) error {
	resp, err := client.Post(url, "application/json", bytes.NewReader(body))
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	var buf bytes.Buffer
	_, _ = buf.ReadFrom(resp.Body)
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%d %s", resp.StatusCode, buf.Bytes())
	}
	return nil
}

func pct(ds []time.Duration, p float64) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[min(len(s)-1, int(float64(len(s))*p))]
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
