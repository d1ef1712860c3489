package worker_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/weaviate/weaviate-go-client/v5/weaviate"
	"github.com/weaviate/weaviate-go-client/v5/weaviate/graphql"
	"github.com/weaviate/weaviate-go-client/v5/weaviate/grpc"

	"ragd"
	"ragd/internal/testkit/stack"
)

// BenchmarkGrowth grows one namespace in steps (RAGD_GROWTH_STEPS chunks,
// e.g. "10000,100000,1000000"; the benchmark is skipped without it) from
// real Markdown and HTML of this machine — the module cache's and GOROOT's,
// each copy made unique — ingested as directory jobs, and at each step
// prints the ingest rate end to end, keyword and hybrid p50/p99 for ragd
// (REST, expansions off and on) and for raw Weaviate (gRPC, same tenant,
// limit and properties), ragd's RSS, Redis memory and Weaviate's disk
// (targets: 1M chunks in ≤ 15 min, p50 at 1M ≤ 2× its p50 at 10k,
// ragd ≤ 1.15× raw, RSS ≤ 300 MB, Redis ≤ 400 MB). `make bench-growth`
// runs it.
func BenchmarkGrowth(b *testing.B) {
	steps := growthSteps(b)
	root := b.TempDir()
	cfg := stack.Config(b, root)
	cfg.Worker.Concurrency = 4
	cfg.Search.StemExpansion, cfg.Search.SynonymExpansion, cfg.Search.KeywordSynonymExpansion = false, false, false
	cfg.Cache.Enabled = false // every query is searched, not answered from the cache
	s := stack.Start(b, cfg, true)
	defaults := stack.Config(b, root)
	defaults.Weaviate.Collection, defaults.Redis.KeyPrefix = cfg.Weaviate.Collection, cfg.Redis.KeyPrefix
	defaults.Worker.Queue = cfg.Worker.Queue + "-idle" // a second API over the same data, defaults on
	defaults.Cache.Enabled = false
	d := stack.Start(b, defaults, false)
	sources := growthSources(b)
	raw := rawClient(b, cfg.Weaviate.URL, cfg.Weaviate.GRPCAddr)
	c := &corpus{dir: filepath.Join(root, "growth"), sources: sources}
	total, files := 0, 0
	start := time.Now()
	fmt.Printf("growth: %d source documents; steps %v\n", len(sources), steps)
	for _, target := range steps {
		stepStart, stepChunks := time.Now(), 0
		for total < target {
			batch := c.write(b, files, min(2000, max(200, (target-total)/20)))
			files += batch
			n := ingestDir(b, s, c.batchDir(files))
			total += n
			stepChunks += n
		}
		elapsed := time.Since(stepStart)
		fmt.Printf("step %d chunks (%d files, %s since start): ingest %.0f chunks/s this step\n",
			total, files, time.Since(start).Round(time.Second), float64(stepChunks)/elapsed.Seconds())
		growthSearch(b, s, d, raw, cfg.Weaviate.Collection)
		fmt.Printf("  ragd RSS %d MB, Redis %s, Weaviate disk %s, Weaviate RSS %d MB\n", rssMB(), redisMemory(b, s),
			duHuman(os.Getenv("RAGD_TEST_WEAVIATE_DIR")), weaviateRSS())
		fmt.Print(redisFamilies(b, s.Redis, cfg.Redis.KeyPrefix, cfg.Worker.Queue, total, files))
	}
}

func growthSteps(b *testing.B) []int {
	spec := os.Getenv("RAGD_GROWTH_STEPS")
	if spec == "" {
		b.Skip("RAGD_GROWTH_STEPS not set: `make bench-growth` runs this benchmark")
	}
	var steps []int
	for _, f := range strings.Split(spec, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n <= 0 {
			b.Fatalf("RAGD_GROWTH_STEPS %q: %q is not a positive count", spec, f)
		}
		steps = append(steps, n)
	}
	slices.Sort(steps)
	return steps
}

// growthSources lists the real documents the corpus copies.
func growthSources(b *testing.B) []string {
	var out []string
	for _, root := range []string{os.Getenv("GOMODCACHE"), runtime.GOROOT()} {
		if root == "" {
			out2, _ := exec.Command("go", "env", "GOMODCACHE").Output()
			root = strings.TrimSpace(string(out2))
		}
		_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return nil
			}
			if ext := strings.ToLower(filepath.Ext(p)); ext == ".md" || ext == ".html" {
				if fi, err := d.Info(); err == nil && fi.Size() > 2048 && fi.Size() < 512<<10 {
					out = append(out, p)
				}
			}
			return nil
		})
	}
	if len(out) < 100 {
		b.Fatalf("only %d real documents found", len(out))
	}
	slices.Sort(out)
	return out
}

// corpus writes unique copies of the sources, in batch directories.
type corpus struct {
	dir     string
	sources []string
}

func (c *corpus) batchDir(files int) string { return filepath.Join(c.dir, fmt.Sprintf("b%07d", files)) }

// write writes n more copies into the next batch's directory; each copy
// gets a first line naming it, so its content hash is its own.
func (c *corpus) write(b *testing.B, done, n int) int {
	dir := c.batchDir(done + n)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		b.Fatal(err)
	}
	for i := range n {
		k := done + i
		src := c.sources[k%len(c.sources)]
		data, err := os.ReadFile(src)
		if err != nil {
			b.Fatal(err)
		}
		ext := filepath.Ext(src)
		head := fmt.Sprintf("Copy %d of %s\n\n", k/len(c.sources), filepath.Base(src))
		if ext == ".html" {
			head = "<p>" + head + "</p>\n"
		}
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("c%07d%s", k, ext)), append([]byte(head), data...), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	return n
}

// ingestDir indexes a directory through REST and the worker and returns
// the chunks written.
func ingestDir(b *testing.B, s *stack.Stack, dir string) int {
	resp := s.Do(b, http.MethodPost, "/tools/rag_index_directory", map[string]any{"directory_path": dir, "kb_name": "growth"})
	if resp.Status != http.StatusAccepted {
		b.Fatalf("index %s: %d %s", dir, resp.Status, resp.Body)
	}
	job := s.WaitJob(b, resp.JSON["job_id"].(string), 30*time.Minute)
	var res ragd.DirectoryResult
	if job.Status != ragd.JobCompleted || json.Unmarshal(job.Result, &res) != nil {
		b.Fatalf("directory job: %+v", job)
	}
	return res.ChunksIndexed
}

var growthQueries = []string{"installation instructions", "license terms", "configuration options", "command line flags",
	"error handling", "running the tests", "contributing guidelines", "release notes", "memory model", "garbage collector",
	"http server timeouts", "json encoding", "context cancellation", "concurrency patterns", "benchmark results",
	"build from source", "environment variables", "logging levels", "database driver", "protocol buffers"}

// growthSearch prints keyword and hybrid p50/p99 for raw Weaviate, ragd
// with expansions off and ragd with the defaults, interleaved.
func growthSearch(b *testing.B, s, d *stack.Stack, raw *weaviate.Client, collection string) {
	ctx := context.Background()
	vectors := map[string][]float32{}
	for _, q := range growthQueries {
		v, err := s.Search.Embedder.Embed(ctx, []string{q})
		if err != nil {
			b.Fatal(err)
		}
		vectors[q] = v[0]
	}
	client := &http.Client{}
	rest := func(st *stack.Stack, mode string) func(string) {
		return func(q string) {
			body, _ := json.Marshal(map[string]any{"query": q, "top_k": 5, "mode": mode, "kb_name": "growth"})
			resp, err := client.Post(st.URL+"/tools/rag_search", "application/json", bytes.NewReader(body))
			if err != nil {
				b.Fatal(err)
			}
			resp.Body.Close()
		}
	}
	rawQuery := func(keyword bool) func(string) {
		return func(q string) {
			req := raw.Experimental().Search().WithCollection(collection).WithTenant("growth").WithLimit(5).
				WithProperties("text", "document_id", "source", "source_type", "content_hash", "chunk_index", "path", "level",
					"summary", "page", "timestamp", "tags").WithMetadata(&graphql.Metadata{ID: true, Score: true})
			if keyword {
				req = req.WithBM25((&graphql.BM25ArgumentBuilder{}).WithQuery(q).WithProperties("text", "path"))
			} else {
				req = req.WithHybrid((&graphql.HybridArgumentBuilder{}).WithQuery(q).WithVector(vectors[q]).WithAlpha(0.3).
					WithProperties([]string{"text", "path"}).WithFusionType(graphql.RelativeScore))
			}
			if _, err := req.Do(ctx); err != nil {
				b.Fatal(err)
			}
		}
	}
	for _, mode := range []string{"keyword", "hybrid"} {
		fs := []func(string){rawQuery(mode == "keyword"), rest(s, mode), rest(d, mode)}
		lat := make([][]time.Duration, len(fs))
		for round := range 3 {
			for k, q := range growthQueries {
				for i := range fs {
					j := (k + i + round) % len(fs)
					t0 := time.Now()
					fs[j](q)
					lat[j] = append(lat[j], time.Since(t0))
				}
			}
		}
		p := func(l []time.Duration, q float64) time.Duration {
			l = slices.Clone(l)
			slices.Sort(l)
			return l[min(len(l)-1, int(float64(len(l))*q))].Round(10 * time.Microsecond)
		}
		fmt.Printf("  %-7s raw p50 %s p99 %s | ragd expansions off p50 %s p99 %s (%.2f× raw) | defaults p50 %s p99 %s (%.2f× raw)\n", mode,
			p(lat[0], .5), p(lat[0], .99), p(lat[1], .5), p(lat[1], .99), float64(p(lat[1], .5))/float64(p(lat[0], .5)),
			p(lat[2], .5), p(lat[2], .99), float64(p(lat[2], .5))/float64(p(lat[0], .5)))
	}
}

func rawClient(b *testing.B, weaviateURL, grpcAddr string) *weaviate.Client {
	u, err := url.Parse(weaviateURL)
	if err != nil {
		b.Fatal(err)
	}
	c, err := weaviate.NewClient(weaviate.Config{Host: u.Host, Scheme: u.Scheme, GrpcConfig: &grpc.Config{Host: grpcAddr}})
	if err != nil {
		b.Fatal(err)
	}
	return c
}

// rssMB is this process's resident set: ragd's API and worker run in it,
// beside a second API (with the default retrieval) and the benchmark, so it
// is an upper bound on one ragd process's.
func rssMB() int { return rssOf("self") }

// weaviateRSS is the test Weaviate's RSS in MB (RAGD_TEST_WEAVIATE_PID,
// which make test and make bench-growth set), or -1.
func weaviateRSS() int {
	pid := os.Getenv("RAGD_TEST_WEAVIATE_PID")
	if pid == "" {
		return -1
	}
	return rssOf(pid)
}

// rssOf is process pid's ("self" for this one) VmRSS in MB, or -1.
func rssOf(pid string) int {
	f, err := os.Open("/proc/" + pid + "/status")
	if err != nil {
		return -1
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if kb, ok := strings.CutPrefix(sc.Text(), "VmRSS:"); ok {
			n, _ := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(kb), "kB")))
			return n / 1024
		}
	}
	return -1
}

func redisMemory(b *testing.B, s *stack.Stack) string {
	info, err := s.Redis.Info(context.Background(), "memory").Result()
	if err != nil {
		b.Fatal(err)
	}
	for _, line := range strings.Split(info, "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), "used_memory_human:"); ok {
			return v
		}
	}
	return "?"
}

func duHuman(dir string) string {
	if dir == "" {
		return "? (RAGD_TEST_WEAVIATE_DIR not set)"
	}
	out, err := exec.Command("du", "-sh", dir).Output()
	if err != nil {
		return "?"
	}
	return strings.Fields(string(out))[0]
}
