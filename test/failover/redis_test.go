// Package failover holds the tests that kill a real dependency under load.
package failover

import (
	"cmp"
	"encoding/json"
	"fmt"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"ragd"
	"ragd/internal/platform/config"
	"ragd/internal/testkit/sentinel"
	"ragd/internal/testkit/stack"
	"ragd/internal/testkit/testenv"
)

// The Redis primary SIGKILLed under a directory ingest, a stream of
// single-document requests and one of searches: the sentinels promote the
// replica, ragd's queue, registry and cache follow it, every search is
// answered (the registry and cache wait out the failover; before, the
// searches of its ~2 s answered 503), every directory file and every
// acknowledged request reaches completed — none is lost (a job no replica
// held in time is refused with 503, and the stream retries it) — the
// stream's namespace holds one document per request, and the chunk count
// equals a clean run's (no file indexed twice into duplicate chunks).
func TestRedisPrimaryKilledUnderIngest(t *testing.T) {
	testenv.WeaviateURL(t) // skips under -short before the sentinels start
	set := sentinel.Start(t, sentinel.DefaultPorts)
	root := corpus(t)
	cfg := stack.Config(t, root)
	cfg.Redis.URL = ""
	cfg.Redis.Sentinel.MasterName, cfg.Redis.Sentinel.Addrs = sentinel.MasterName, set.Addrs() // the default waits
	killUnderIngest(t, cfg, root, failover{
		what:     "primary",
		kill:     set.KillPrimary,
		promoted: func(t *testing.T, old int) int { return set.WaitPromoted(t, old, 30*time.Second) },
		restart:  set.Restart, // back as a replica, so WAIT has a replica again
	})
}

// failover is a Redis failure a test provokes: kill kills a primary and
// returns its port, promoted waits for its replacement, restart brings
// the killed server back as a replica.
type failover struct {
	what string
	// clean names the namespace of the clean run, which the searches
	// read ("" for clean).
	clean    string
	kill     func(t testing.TB) int
	promoted func(t *testing.T, old int) int
	restart  func(t testing.TB, port int)
}

// killUnderIngest runs a clean directory ingest, then the same directory
// again with a stream of single-document requests and one of searches,
// provokes f meanwhile, and checks nothing failed, was lost or doubled.
func killUnderIngest(t *testing.T, cfg config.Config, root string, f failover) {
	log, errs := stack.LoggerKeepingErrors(t)
	s := stack.StartWithLogger(t, cfg, true, log)
	cleanNS := cmp.Or(f.clean, "clean")
	clean := ingestDirectory(t, s, root, cleanNS)
	cleanJob := waitJob(t, s, clean, 3*time.Minute)
	files := checkCompleted(t, cleanJob)
	cleanChunks := s.ChunkCount(t, cleanNS, "")

	chaos := ingestDirectory(t, s, root, "chaos")
	waitProgress(t, s, chaos, 3)
	stream := startStream(t, s)
	searches := startSearches(t, s, cleanNS)
	time.Sleep(300 * time.Millisecond) // some requests before the kill
	old := f.kill(t)
	killed := time.Now()
	promoted := f.promoted(t, old)
	t.Logf("%s :%d killed; :%d promoted after %s", f.what, old, promoted, time.Since(killed).Round(100*time.Millisecond))
	f.restart(t, old)
	time.Sleep(2 * time.Second)
	sent, failed := searches.stop()
	st := stream.stop()
	testenv.Report(t, "%s killed: searches %d sent, %d failed, the longest took %s", f.what, sent, len(failed), searches.longest.Round(time.Millisecond))
	if len(failed) > 0 {
		t.Errorf("%d of %d searches failed during the failover; first: %s\nragd's errors:\n%s", len(failed), sent, failed[0], errs)
	}
	checkAfterFailover(t, s, chaos, files, cleanChunks, st, killed)
	checkRegistryAndCache(t, s, countDocuments(t, s, cleanNS))
}

// checkAfterFailover: the directory job indexes every file, no
// acknowledged request is lost and each completes, the stream's namespace
// holds one document per request, and the chunks equal the clean run's.
func checkAfterFailover(t *testing.T, s *stack.Stack, chaos string, files, cleanChunks int, st streamed, killed time.Time) {
	job := waitJob(t, s, chaos, 3*time.Minute)
	t.Logf("directory job ended %s after the kill", time.Since(killed).Round(100*time.Millisecond))
	if got := checkCompleted(t, job); got != files {
		t.Errorf("chaos run indexed %d files, the clean run %d", got, files)
	}
	lost, failed := 0, 0
	for _, id := range st.acked {
		// A task whose run failed mid-failover, when Asynq could not record
		// the retry, stays active until its lease lapses and Asynq's
		// recoverer finds it: up to about 100 s here (Asynq v0.26, lease
		// 30 s, recoverer each minute). One run waited more than a minute.
		j, found := waitFound(t, s, id, 3*time.Minute)
		switch {
		case !found:
			lost++
			t.Errorf("acknowledged job %s is gone: lost in the failover", id)
		case j.Status != ragd.JobCompleted:
			failed++
			t.Errorf("acknowledged job %s ended %s: %s", id, j.Status, j.Error)
		}
	}
	t.Logf("acknowledged jobs ended %s after the kill", time.Since(killed).Round(100*time.Millisecond))
	chunks := s.ChunkCount(t, "chaos", "")
	testenv.Report(t, "directory files %d, chunks clean %d chaos %d (duplicates %d, missing %d); requests acknowledged %d, already indexed %d, "+
		"refused %d (retried), given up %d; jobs lost %d, failed %d", files, cleanChunks, chunks, max(chunks-cleanChunks, 0),
		max(cleanChunks-chunks, 0), len(st.acked), st.dedup, st.refused, st.unsettled, lost, failed)
	if chunks != cleanChunks {
		t.Errorf("chaos run stored %d chunks, the clean run %d", chunks, cleanChunks)
	}
	if len(st.acked) == 0 {
		t.Error("no request was acknowledged while the primary was killed")
	}
	if docs, want := countDocuments(t, s, "stream"), len(st.acked)+st.dedup; st.unsettled == 0 && docs != want {
		t.Errorf("the stream's namespace holds %d documents for %d requests settled: a refused request's retry doubled or lost one", docs, want)
	}
}

// corpus is Go's own documentation: distinct files, so that no two are
// one document (a namespace keeps one copy of identical content).
func corpus(t *testing.T) string {
	root := t.TempDir()
	for _, f := range []string{"doc/go_spec.html", "doc/go_mem.html", "doc/asm.html", "doc/godebug.md", "doc/README.md",
		"src/cmd/compile/README.md", "src/runtime/HACKING.md", "src/cmd/compile/internal/types2/README.md",
		"src/cmd/compile/internal/ssa/README.md", "src/internal/trace/tracev2/EXPERIMENTS.md", "src/cmd/compile/abi-internal.md",
		"src/cmd/vendor/golang.org/x/sys/unix/README.md", "src/math/big/calibrate.md"} {
		testenv.CopyFile(t, testenv.GorootFile(t, f), filepath.Join(root, "docs", strings.ReplaceAll(f, "/", "_")))
	}
	return root
}

func ingestDirectory(t *testing.T, s *stack.Stack, root, kb string) string {
	t.Helper()
	resp := s.Do(t, http.MethodPost, "/tools/rag_index_directory", map[string]any{"directory_path": filepath.Join(root, "docs"), "kb_name": kb})
	id, _ := resp.JSON["job_id"].(string)
	if resp.Status != http.StatusAccepted || id == "" {
		t.Fatalf("rag_index_directory %s: %d %s", kb, resp.Status, resp.Body)
	}
	return id
}

// readJob reads a job and the status it was answered with: 200, 503
// (during the failover, which is not an end) or 404 (the job is gone).
func readJob(t *testing.T, s *stack.Stack, id string) (ragd.Job, int) {
	resp := s.Do(t, http.MethodGet, "/jobs/"+id, nil)
	switch resp.Status {
	case http.StatusOK:
	case http.StatusServiceUnavailable, http.StatusNotFound:
		return ragd.Job{}, resp.Status
	default:
		t.Fatalf("GET /jobs/%s: %d %s", id, resp.Status, resp.Body)
	}
	var job ragd.Job
	if err := json.Unmarshal(resp.Body, &job); err != nil {
		t.Fatal(err)
	}
	return job, resp.Status
}

// getJob reads a job, failing the test when it is gone; false while ragd
// answers 503.
func getJob(t *testing.T, s *stack.Stack, id string) (ragd.Job, bool) {
	job, status := readJob(t, s, id)
	if status == http.StatusNotFound {
		t.Fatalf("job %s is gone: lost in the failover", id)
	}
	return job, status == http.StatusOK
}

func waitJob(t *testing.T, s *stack.Stack, id string, timeout time.Duration) ragd.Job {
	t.Helper()
	job, found := waitFound(t, s, id, timeout)
	if !found {
		t.Fatalf("job %s is gone: lost in the failover", id)
	}
	return job
}

// waitFound waits until the job ends; false when it is gone.
func waitFound(t *testing.T, s *stack.Stack, id string, timeout time.Duration) (ragd.Job, bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		job, status := readJob(t, s, id)
		if status == http.StatusNotFound {
			return job, false
		}
		if status == http.StatusOK && job.Status.Terminal() {
			return job, true
		}
		if time.Now().After(deadline) {
			t.Fatalf("job %s not ended after %s: %+v", id, timeout, job)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// waitProgress waits until the directory job has finished n files, so the
// kill lands mid-ingest.
func waitProgress(t *testing.T, s *stack.Stack, id string, n int) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for time.Now().Before(deadline) {
		if job, ok := getJob(t, s, id); ok && job.Progress.Done >= n {
			if job.Status.Terminal() {
				t.Fatalf("directory job ended before the kill: make the corpus bigger (%+v)", job.Progress)
			}
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("directory job %s did not reach %d files", id, n)
}

// checkCompleted fails unless the directory job and every file completed;
// it returns the number of files.
func checkCompleted(t *testing.T, job ragd.Job) int {
	t.Helper()
	if job.Status != ragd.JobCompleted {
		t.Fatalf("directory job %s: %s", job.Status, job.Error)
	}
	for _, c := range job.Children {
		if c.Status != ragd.JobCompleted || c.Chunks == 0 {
			t.Errorf("file job %+v", c)
		}
	}
	if len(job.Children) == 0 {
		t.Fatal("directory job has no files")
	}
	return len(job.Children)
}

// stream sends single-document requests until stopped, each a new text,
// keeping the ids of those ragd acknowledged (202). A refused request is
// sent again, as a client would (the requests are idempotent), until it
// is acknowledged or found already indexed (200), after the stop too.
type stream struct {
	done   chan struct{}
	giveUp time.Time // after the stop, for a request still refused
	wg     sync.WaitGroup
	mu     sync.Mutex
	streamed
}

// streamed is what a stream sent: the jobs acknowledged, the requests
// answered already indexed (a refused request's job ran after all), the
// refusals, and the requests still refused when it gave up.
type streamed struct {
	acked                     []string
	dedup, refused, unsettled int
}

func startStream(t *testing.T, s *stack.Stack) *stream {
	st := &stream{done: make(chan struct{})}
	for g := range 4 {
		st.wg.Add(1)
		go st.send(t, s, g)
	}
	return st
}

func (st *stream) send(t *testing.T, s *stack.Stack, g int) {
	defer st.wg.Done()
	settled := true
	for i := 0; ; {
		select {
		case <-st.done:
			if settled {
				return
			}
			if time.Now().After(st.giveUp) {
				st.mu.Lock()
				st.unsettled++
				st.mu.Unlock()
				return
			}
		default:
		}
		time.Sleep(50 * time.Millisecond)
		text := fmt.Sprintf("Stream note %d-%d: basalt column number %d cooled slowly.", g, i, i)
		resp := s.Do(t, http.MethodPost, "/tools/rag_index", map[string]any{"text": text, "kb_name": "stream", "title": "note " + strconv.Itoa(i)})
		id, _ := resp.JSON["job_id"].(string)
		dedup, _ := resp.JSON["dedup_hit"].(bool)
		st.mu.Lock()
		switch settled = true; {
		case resp.Status == http.StatusAccepted && id != "":
			st.acked = append(st.acked, id)
		case resp.Status == http.StatusOK && dedup:
			st.dedup++
		default:
			st.refused++
			settled = false
		}
		st.mu.Unlock()
		if settled {
			i++
		}
	}
}

func (st *stream) stop() streamed {
	st.giveUp = time.Now().Add(time.Minute)
	close(st.done)
	st.wg.Wait()
	return st.streamed
}

// searches send the same few searches without pause from two goroutines,
// keeping what did not answer 200 with hits.
type searches struct {
	done    chan struct{}
	wg      sync.WaitGroup
	mu      sync.Mutex
	sent    int
	failed  []string
	longest time.Duration
}

func startSearches(t *testing.T, s *stack.Stack, kb string) *searches {
	ss := &searches{done: make(chan struct{})}
	queries := []string{"memory model happens before", "garbage collector write barrier", "goroutine scheduler", "register allocation"}
	for g := range 2 {
		ss.wg.Add(1)
		go func() {
			defer ss.wg.Done()
			for i := g; ; i++ {
				select {
				case <-ss.done:
					return
				default:
				}
				start := time.Now()
				resp := s.Do(t, http.MethodPost, "/tools/rag_search", map[string]any{"query": queries[i%len(queries)], "kb_name": kb, "top_k": 3})
				took := time.Since(start)
				results, _ := resp.JSON["results"].([]any)
				ss.mu.Lock()
				ss.sent++
				ss.longest = max(ss.longest, took)
				if resp.Status != http.StatusOK || len(results) == 0 {
					ss.failed = append(ss.failed, fmt.Sprintf("%q: %d after %s: %.200s", queries[i%len(queries)], resp.Status, took.Round(time.Millisecond), resp.Body))
				}
				ss.mu.Unlock()
			}
		}()
	}
	return ss
}

func (ss *searches) stop() (int, []string) {
	close(ss.done)
	ss.wg.Wait()
	return ss.sent, ss.failed
}

// checkRegistryAndCache: after the failover the registry lists every
// document and a repeated search is served from the cache.
func checkRegistryAndCache(t *testing.T, s *stack.Stack, want int) {
	t.Helper()
	if n := countDocuments(t, s, "chaos"); n != want {
		t.Errorf("registry lists %d documents after the failover, %d after the clean run", n, want)
	}
	query := map[string]any{"query": "memory model happens before", "kb_name": "chaos", "top_k": 3}
	before := cacheHits(t, s)
	for range 2 {
		if r := s.Do(t, http.MethodPost, "/tools/rag_search", query); r.Status != http.StatusOK {
			t.Fatalf("search after failover: %d %s", r.Status, r.Body)
		}
	}
	if after := cacheHits(t, s); after != before+1 {
		t.Errorf("cache hits %v -> %v after a repeated search: the cache does not work after the failover", before, after)
	}
}

func cacheHits(t *testing.T, s *stack.Stack) float64 {
	resp := s.Do(t, http.MethodGet, "/metrics", nil)
	for _, line := range strings.Split(string(resp.Body), "\n") {
		if strings.HasPrefix(line, "ragd_cache_lookups_total{") && strings.Contains(line, `result="hit"`) && strings.Contains(line, `tool="rag_search"`) {
			v, _ := strconv.ParseFloat(line[strings.LastIndex(line, " ")+1:], 64)
			return v
		}
	}
	return 0
}

// countDocuments is the registry's document count of a namespace.
func countDocuments(t *testing.T, s *stack.Stack, kb string) int {
	t.Helper()
	resp := s.Do(t, http.MethodGet, "/documents?kb_name="+kb+"&limit=1000", nil)
	var docs struct {
		Total int `json:"total"`
	}
	if err := json.Unmarshal(resp.Body, &docs); resp.Status != http.StatusOK || err != nil {
		t.Fatalf("GET /documents?kb_name=%s: %d %s", kb, resp.Status, resp.Body)
	}
	t.Logf("registry: %d documents in %s", docs.Total, kb)
	return docs.Total
}
