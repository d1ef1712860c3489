package worker_test

import (
	"crypto/sha256"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"ragd"
	"ragd/internal/platform/config"
	"ragd/internal/testkit/stack"
	"ragd/internal/testkit/testenv"
)

// fakeEmbeddings speaks the OpenAI /v1/embeddings wire format: a stand-in for
// a hosted embedding API. Once armed, requests after the first `after` block
// until released, so a test can catch a worker mid-job.
type fakeEmbeddings struct {
	dim      int
	after    int64 // requests answered before the rest block until release
	failFrom int64 // when set, this request and every later one gets a 400
	requests atomic.Int64
	delay    atomic.Int64  // when set, every request takes this long (ns)
	down     atomic.Int64  // when set, this request and every later one gets a 503
	blocked  chan struct{} // receives once per blocked request
	release  chan struct{}
	once     sync.Once
}

func (f *fakeEmbeddings) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Input []string `json:"input"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, `{"error":{"message":"bad json"}}`, http.StatusBadRequest)
		return
	}
	n := f.requests.Add(1)
	if d := f.down.Load(); d > 0 && n >= d {
		http.Error(w, `{"error":{"message":"overloaded"}}`, http.StatusServiceUnavailable)
		return
	}
	if f.failFrom > 0 && n >= f.failFrom {
		http.Error(w, `{"error":{"message":"input rejected"}}`, http.StatusBadRequest)
		return
	}
	if d := time.Duration(f.delay.Load()); d > 0 {
		select {
		case <-time.After(d):
		case <-r.Context().Done():
			return
		}
	}
	if f.after > 0 && n > f.after {
		select {
		case f.blocked <- struct{}{}:
		default:
		}
		select {
		case <-f.release:
		case <-r.Context().Done():
			return
		}
	}
	type item struct {
		Embedding []float32 `json:"embedding"`
		Index     int       `json:"index"`
	}
	data := make([]item, len(req.Input))
	for i, text := range req.Input {
		sum := sha256.Sum256([]byte(text))
		v := make([]float32, f.dim)
		for j := range v {
			v[j] = float32(sum[j%len(sum)])/255 + 0.01
		}
		data[i] = item{Embedding: v, Index: i}
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{"object": "list", "data": data, "model": "fake"})
}

func (f *fakeEmbeddings) open() { f.once.Do(func() { close(f.release) }) }

// fakeEmbedderConfig returns a stack config whose embedder is fake, served
// over HTTP, 4 texts a request, and whose ingest root holds go_mem.html
// (31 chunks), whose path it also returns.
func fakeEmbedderConfig(t *testing.T, fake *fakeEmbeddings) (config.Config, string) {
	t.Helper()
	root := t.TempDir()
	doc := filepath.Join(root, "go_mem.html")
	testenv.CopyFile(t, testenv.GorootFile(t, "doc/go_mem.html"), doc)
	srv := httptest.NewServer(fake)
	t.Cleanup(srv.Close)
	cfg := stack.Config(t, root)
	cfg.Embed = config.Embed{Provider: "openai", BaseURL: srv.URL + "/v1", Model: "fake-embed", Dimension: fake.dim,
		BatchSize: 4, Timeout: 10 * time.Second}
	return cfg, doc
}

func buildRagd(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "ragd")
	cmd := exec.Command("go", "build", "-o", bin, "ragd/cmd/ragd")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// workerEnv configures a `ragd worker` process like cfg, through the
// RAGD_<SECTION>_<KEY> variables alone.
func workerEnv(cfg config.Config) []string {
	env := os.Environ()
	set := func(section, key, value string) { env = append(env, config.EnvName(section, key)+"="+value) }
	set("redis", "url", cfg.Redis.URL)
	set("redis", "key_prefix", cfg.Redis.KeyPrefix)
	set("weaviate", "url", cfg.Weaviate.URL)
	set("weaviate", "grpc_addr", cfg.Weaviate.GRPCAddr)
	set("weaviate", "collection", cfg.Weaviate.Collection)
	set("worker", "queue", cfg.Worker.Queue)
	set("worker", "concurrency", strconv.Itoa(cfg.Worker.Concurrency))
	set("embed", "provider", cfg.Embed.Provider)
	set("embed", "base_url", cfg.Embed.BaseURL)
	set("embed", "model", cfg.Embed.Model)
	set("embed", "dimension", strconv.Itoa(cfg.Embed.Dimension))
	set("embed", "batch_size", strconv.Itoa(cfg.Embed.BatchSize))
	set("ingest", "roots", cfg.Ingest.Roots[0])
	return env
}

// A worker killed with SIGKILL in the middle of a job loses nothing: Asynq
// hands the job to another worker once the dead one's lease expires, and the
// final chunks equal those of a clean run, with no duplicates.
func TestWorkerKilledMidJobIsRecovered(t *testing.T) {
	t.Parallel()
	fake := &fakeEmbeddings{dim: 16, after: 3, blocked: make(chan struct{}, 1), release: make(chan struct{})}
	t.Cleanup(fake.open)
	cfg, doc := fakeEmbedderConfig(t, fake)
	cfg.Worker.Concurrency = 1
	s := stack.Start(t, cfg, false)

	proc := exec.Command(buildRagd(t), "worker")
	proc.Dir, proc.Env = t.TempDir(), workerEnv(cfg)
	if testing.Verbose() {
		proc.Stderr = os.Stderr
	}
	if err := proc.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = proc.Process.Kill(); _ = proc.Wait() })

	resp := s.Do(t, http.MethodPost, "/tools/rag_index", map[string]any{"file_path": doc})
	if resp.Status != http.StatusAccepted {
		t.Fatalf("rag_index: %d %s", resp.Status, resp.Body)
	}
	var enq struct {
		JobID      string `json:"job_id"`
		DocumentID string `json:"document_id"`
	}
	_ = json.Unmarshal(resp.Body, &enq)

	select {
	case <-fake.blocked:
	case <-time.After(60 * time.Second):
		t.Fatal("the worker process never reached its fourth embedding batch")
	}
	job := jobState(t, s, enq.JobID)
	if job.Status != ragd.JobActive || job.Progress.Done == 0 || job.Progress.Done >= job.Progress.Total {
		t.Fatalf("before the kill the job should be active and part-written: %+v", job)
	}
	written := s.ChunkCount(t, "default", enq.DocumentID)
	if written == 0 {
		t.Fatal("no chunks written before the kill")
	}
	if err := proc.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = proc.Wait()
	t.Logf("killed the worker with %d of %d chunks written", written, job.Progress.Total)
	fake.open()

	// Searches never see the half-written version meanwhile.
	search := s.Do(t, http.MethodPost, "/tools/rag_search", map[string]any{"query": "happens before", "top_k": 20})
	if n := int(search.JSON["count"].(float64)); n != 0 {
		t.Fatalf("a search saw %d chunks of the half-written document", n)
	}

	w := s.NewWorker()
	if err := w.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.Shutdown)
	job = s.WaitJob(t, enq.JobID, 4*time.Minute)
	var res ragd.DocumentResult
	_ = json.Unmarshal(job.Result, &res)
	if job.Status != ragd.JobCompleted || job.Retried < 1 || res.ChunksIndexed != job.Progress.Total {
		t.Fatalf("recovered job: %+v (result %+v)", job, res)
	}

	clean := s.Do(t, http.MethodPost, "/tools/rag_index", map[string]any{"file_path": doc, "kb_name": "clean", "wait": true})
	want := int(clean.JSON["chunks_indexed"].(float64))
	if clean.Status != http.StatusOK || want == 0 {
		t.Fatalf("clean run: %d %s", clean.Status, clean.Body)
	}
	if res.ChunksIndexed != want {
		t.Fatalf("recovered run indexed %d chunks, clean run %d", res.ChunksIndexed, want)
	}
	if got := s.ChunkCount(t, "default", enq.DocumentID); got != want {
		t.Fatalf("after recovery %d chunks stored, clean run has %d", got, want)
	}
	search = s.Do(t, http.MethodPost, "/tools/rag_search", map[string]any{"query": "happens before", "top_k": 5})
	if n := int(search.JSON["count"].(float64)); n == 0 {
		t.Fatal("recovered document not searchable")
	}
}

func jobState(t *testing.T, s *stack.Stack, id string) ragd.Job {
	t.Helper()
	resp := s.Do(t, http.MethodGet, "/jobs/"+id, nil)
	var job ragd.Job
	if err := json.Unmarshal(resp.Body, &job); err != nil {
		t.Fatalf("job %s: %v %s", id, err, resp.Body)
	}
	return job
}
