package worker_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"ragd"
	"ragd/internal/jobs"
	"ragd/internal/library"
	"ragd/internal/platform/config"
	"ragd/internal/testkit/stack"
	"ragd/internal/testkit/testenv"
)

// realDocs copies n distinct Markdown documents of at least 3 KB written
// by others — the Go distribution's and the module cache's READMEs — into
// root, and returns their paths.
func realDocs(t *testing.T, root string, n int) []string {
	t.Helper()
	out, err := exec.Command("go", "env", "GOROOT", "GOMODCACHE").Output()
	if err != nil {
		t.Fatal(err)
	}
	dirs := strings.Fields(string(out))
	var candidates []string
	for _, pattern := range []string{"src/*/*.md", "src/*/*/*.md", "src/*/*/*/*.md", "doc/*.md"} {
		m, _ := filepath.Glob(filepath.Join(dirs[0], pattern))
		candidates = append(candidates, m...)
	}
	for _, pattern := range []string{"*/*@*/README.md", "*/*/*@*/README.md"} {
		m, _ := filepath.Glob(filepath.Join(dirs[1], pattern))
		candidates = append(candidates, m...)
	}
	slices.Sort(candidates)
	seen := map[string]bool{}
	unsafe := regexp.MustCompile(`[^A-Za-z0-9]+`)
	var paths []string
	for _, c := range candidates {
		data, err := os.ReadFile(c)
		if err != nil || len(data) < 3<<10 || seen[ragd.ContentHash(bytes.TrimSpace(data))] {
			continue
		}
		seen[ragd.ContentHash(bytes.TrimSpace(data))] = true
		rel := strings.TrimPrefix(strings.TrimPrefix(c, dirs[0]), dirs[1])
		p := filepath.Join(root, fmt.Sprintf("%02d-%s.md", len(paths), strings.Trim(unsafe.ReplaceAllString(rel, "-"), "-")))
		testenv.CopyFile(t, c, p)
		if paths = append(paths, p); len(paths) == n {
			return paths
		}
	}
	t.Fatalf("only %d real documents of 3 KB or more found, want %d", len(paths), n)
	return nil
}

// slowEmbedderConfig is a stack confined to root whose embedder is fake,
// 4 texts a request.
func slowEmbedderConfig(t *testing.T, fake *fakeEmbeddings, root string) config.Config {
	t.Helper()
	srv := httptest.NewServer(fake)
	t.Cleanup(srv.Close)
	cfg := stack.Config(t, root)
	cfg.Embed = config.Embed{Provider: "openai", BaseURL: srv.URL + "/v1", Model: "fake-embed", Dimension: fake.dim,
		BatchSize: 4, Timeout: 10 * time.Second}
	return cfg
}

// waitJobUntil polls a job until ok holds of it.
func waitJobUntil(t *testing.T, s *stack.Stack, id string, what string, ok func(ragd.Job) bool) ragd.Job {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for {
		job := jobState(t, s, id)
		if ok(job) {
			return job
		}
		if job.Status.Terminal() || time.Now().After(deadline) {
			t.Fatalf("job %s never %s: %+v", id, what, job)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func countStatus(children []ragd.ChildJob, status ragd.JobStatus) int {
	n := 0
	for _, c := range children {
		if c.Status == status {
			n++
		}
	}
	return n
}

// The main cancel: a directory job of 50 real documents, cancelled while
// its files are being indexed, ends with every file completed or
// cancelled and nothing left to run; the namespace holds exactly the
// completed files' documents, and no chunk of a cancelled file is in
// Weaviate or found by a search.
func TestCancelRunningDirectory(t *testing.T) {
	t.Parallel()
	fake := &fakeEmbeddings{dim: 16}
	fake.delay.Store(int64(250 * time.Millisecond)) // several seconds a file
	root := t.TempDir()
	files := realDocs(t, root, 50)
	cfg := slowEmbedderConfig(t, fake, root)
	cfg.Worker.Concurrency = 4
	s := stack.Start(t, cfg, true)
	const ns = "runaway"

	r := s.Do(t, http.MethodPost, "/tools/rag_index_directory", map[string]any{"directory_path": root, "kb_name": ns})
	if r.Status != http.StatusAccepted {
		t.Fatalf("index directory: %d %s", r.Status, r.Body)
	}
	id, _ := r.JSON["job_id"].(string)
	waitJobUntil(t, s, id, "had files completed and running", func(j ragd.Job) bool {
		return countStatus(j.Children, ragd.JobCompleted) >= 3 && countStatus(j.Children, ragd.JobActive) >= 1
	})
	r = s.Do(t, http.MethodPost, "/jobs/"+id+"/cancel", nil)
	if r.Status != http.StatusOK || r.JSON["job_id"] != id || r.JSON["status"] != "cancelled" {
		t.Fatalf("cancel: %d %s", r.Status, r.Body)
	}

	job := jobState(t, s, id)
	completed, cancelled := map[string]string{}, map[string]string{} // document id → path
	for _, c := range job.Children {
		docID := ragd.DocumentID(ns, "file://"+c.FilePath)
		switch c.Status {
		case ragd.JobCompleted:
			completed[docID] = c.FilePath
		case ragd.JobCancelled:
			cancelled[docID] = c.FilePath
		default:
			t.Errorf("child %s (%s) is %s after the cancel", c.ID, filepath.Base(c.FilePath), c.Status)
		}
	}
	var res ragd.DirectoryResult
	_ = json.Unmarshal(job.Result, &res)
	if job.Status != ragd.JobCancelled || len(job.Children) != len(files) || len(completed) < 3 || len(cancelled) == 0 ||
		job.Progress != (ragd.Progress{Done: len(files), Total: len(files), Unit: "files"}) ||
		res.FilesIndexed != len(completed) || res.FilesCancelled != len(cancelled) {
		t.Fatalf("directory after the cancel: status %s, %d children (%d completed, %d cancelled), progress %+v, result %s",
			job.Status, len(job.Children), len(completed), len(cancelled), job.Progress, job.Result)
	}
	t.Logf("%d files completed, %d cancelled", len(completed), len(cancelled))
	// The embedder calls the cancel interrupted are not the embedder's failures.
	if h := s.Do(t, http.MethodGet, "/health", nil); fmt.Sprint(h.JSON["breakers"]) != "map[embedder:closed weaviate:closed]" {
		t.Errorf("breakers after the cancel: %s", h.Body)
	}
	if info, err := s.Queue.Inspector().GetQueueInfo(s.Queue.Name()); err != nil ||
		info.Pending+info.Active+info.Scheduled+info.Retry != 0 {
		t.Fatalf("tasks left to run: %+v %v", info, err)
	}
	// One meaning of cancelled everywhere: the stats count
	// the directory as one cancelled job, as the listing does, and none of
	// its files, which Asynq archives, as failed.
	stats := s.Do(t, http.MethodGet, "/tools/rag_stats", nil)
	var st struct {
		Statistics struct{ Queue jobs.Stats } `json:"statistics"`
	}
	if err := json.Unmarshal(stats.Body, &st); err != nil || st.Statistics.Queue != (jobs.Stats{Cancelled: 1}) {
		t.Errorf("stats after the cancel: %s", stats.Body)
	}
	for status, want := range map[string]int{"failed": 0, "cancelled": 1} {
		if r := s.Do(t, http.MethodGet, "/jobs?status="+status, nil); r.Status != 200 || r.JSON["total"] != float64(want) {
			t.Errorf("GET /jobs?status=%s: %d %s, want %d", status, r.Status, r.Body, want)
		}
	}
	if m := s.Do(t, http.MethodGet, "/metrics", nil); !strings.Contains(string(m.Body), "\nragd_jobs_cancelled 1\n") {
		t.Errorf("metrics lack ragd_jobs_cancelled 1")
	}

	// The registry holds the completed files, and Weaviate their chunks only.
	r = s.Do(t, http.MethodGet, "/documents?kb_name="+ns+"&limit=1000", nil)
	var list library.DocumentList
	if err := json.Unmarshal(r.Body, &list); err != nil || r.Status != 200 {
		t.Fatalf("documents: %d %s", r.Status, r.Body)
	}
	chunks := 0
	for _, d := range list.Documents {
		if _, ok := completed[d.ID]; !ok {
			t.Errorf("document %s (%s) is not a completed file's", d.ID, d.Source)
		}
		if n := s.ChunkCount(t, ns, d.ID); n != d.Chunks {
			t.Errorf("document %s: registry says %d chunks, Weaviate holds %d", d.Source, d.Chunks, n)
		}
		chunks += d.Chunks
	}
	if len(list.Documents) != len(completed) || s.ChunkCount(t, ns, "") != chunks {
		t.Errorf("%d documents for %d completed files; %d chunks in Weaviate, %d in the registry",
			len(list.Documents), len(completed), s.ChunkCount(t, ns, ""), chunks)
	}
	searched := 0
	for docID, path := range cancelled {
		if n := s.ChunkCount(t, ns, docID); n != 0 {
			t.Errorf("cancelled %s: %d chunks in Weaviate", filepath.Base(path), n)
		}
		if searched++; searched > 5 {
			continue
		}
		for _, hit := range searchHits(t, s, ns, firstLine(t, path)) {
			if _, ok := cancelled[hit]; ok {
				t.Errorf("a search for cancelled %s finds its chunk", filepath.Base(path))
			}
		}
	}
}

// A document job cancelled while it writes its new version leaves the
// previous version current and searchable, and none of the new version's
// chunks behind.
func TestCancelDocumentMidWriteKeepsPreviousVersion(t *testing.T) {
	t.Parallel()
	fake := &fakeEmbeddings{dim: 16}
	root := t.TempDir()
	path := filepath.Join(root, "guide.md")
	testenv.CopyFile(t, testenv.GorootFile(t, "doc/godebug.md"), path)
	s := stack.Start(t, slowEmbedderConfig(t, fake, root), true)
	const ns = "guides"

	r := s.Do(t, http.MethodPost, "/tools/rag_index", map[string]any{"file_path": path, "kb_name": ns, "wait": true})
	docID, _ := r.JSON["document_id"].(string)
	if r.Status != 200 || docID == "" {
		t.Fatalf("first version: %d %s", r.Status, r.Body)
	}
	before := document(t, s, docID)

	testenv.CopyFile(t, testenv.GorootFile(t, "src/runtime/HACKING.md"), path) // the new version: another document
	fake.delay.Store(int64(300 * time.Millisecond))
	r = s.Do(t, http.MethodPost, "/tools/rag_index", map[string]any{"file_path": path, "kb_name": ns})
	id, _ := r.JSON["job_id"].(string)
	if r.Status != http.StatusAccepted {
		t.Fatalf("second version: %d %s", r.Status, r.Body)
	}
	waitJobUntil(t, s, id, "wrote part of its version", func(j ragd.Job) bool {
		return j.Status == ragd.JobActive && j.Progress.Unit == "chunks" && j.Progress.Done >= 8 && j.Progress.Done < j.Progress.Total
	})
	if n := s.ChunkCount(t, ns, docID); n <= before.Chunks {
		t.Fatalf("%d chunks while the new version is written, want more than the %d of the old", n, before.Chunks)
	}
	if r = s.Do(t, http.MethodPost, "/jobs/"+id+"/cancel", nil); r.Status != 200 || r.JSON["status"] != "cancelled" {
		t.Fatalf("cancel: %d %s", r.Status, r.Body)
	}

	if job := jobState(t, s, id); job.Status != ragd.JobCancelled {
		t.Fatalf("job after the cancel: %+v", job)
	}
	after := document(t, s, docID)
	if after.ContentHash != before.ContentHash || after.Chunks != before.Chunks || s.ChunkCount(t, ns, docID) != before.Chunks {
		t.Fatalf("after the cancel: hash %s (was %s), %d chunks in the registry and %d in Weaviate, want %d",
			after.ContentHash, before.ContentHash, after.Chunks, s.ChunkCount(t, ns, docID), before.Chunks)
	}
	if hits := searchHits(t, s, ns, "GODEBUG environment variable settings"); !slices.Contains(hits, docID) {
		t.Errorf("the previous version is not found: %v", hits)
	}
	// Words only the cancelled version has find none of its passages.
	for _, text := range searchTexts(t, s, ns, "scheduler manages three types of resources Gs, Ms, and Ps") {
		if strings.Contains(text, "Gs, Ms, and Ps") {
			t.Errorf("a search finds the cancelled version: %q", text)
		}
	}
	// The run stops: the job is not retried.
	if info, err := s.Queue.Inspector().GetQueueInfo(s.Queue.Name()); err != nil || info.Pending+info.Active+info.Retry != 0 {
		t.Fatalf("tasks left to run: %+v %v", info, err)
	}
}

func document(t *testing.T, s *stack.Stack, id string) ragd.Document {
	t.Helper()
	r := s.Do(t, http.MethodGet, "/documents/"+id, nil)
	var d ragd.Document
	if err := json.Unmarshal(r.Body, &d); err != nil || r.Status != 200 {
		t.Fatalf("document %s: %d %s", id, r.Status, r.Body)
	}
	return d
}

type hit struct {
	DocumentID string `json:"document_id"`
	Text       string `json:"text"`
}

func search(t *testing.T, s *stack.Stack, ns, query string) []hit {
	t.Helper()
	r := s.Do(t, http.MethodPost, "/tools/rag_search", map[string]any{"query": query, "kb_name": ns, "top_k": 20})
	if r.Status != 200 {
		t.Fatalf("search %q: %d %s", query, r.Status, r.Body)
	}
	var body struct {
		Results []hit `json:"results"`
	}
	_ = json.Unmarshal(r.Body, &body)
	return body.Results
}

// searchHits returns the document ids a search of ns finds for query.
func searchHits(t *testing.T, s *stack.Stack, ns, query string) []string {
	t.Helper()
	var ids []string
	for _, h := range search(t, s, ns, query) {
		ids = append(ids, h.DocumentID)
	}
	return ids
}

// searchTexts returns the passages a search of ns finds for query.
func searchTexts(t *testing.T, s *stack.Stack, ns, query string) []string {
	t.Helper()
	var texts []string
	for _, h := range search(t, s, ns, query) {
		texts = append(texts, h.Text)
	}
	return texts
}

// firstLine is the first line of a file with words in it.
func firstLine(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for line := range strings.Lines(string(data)) {
		if l := strings.Trim(line, "# \t\r\n"); len(strings.Fields(l)) >= 2 {
			return l
		}
	}
	return filepath.Base(path)
}

// A directory job cancelled while it is still enqueueing its files stops
// enqueueing: it records the files enqueued so far, and they are cancelled
// or completed like those of a directory that had finished fanning out.
func TestCancelDirectoryWhileFanningOut(t *testing.T) {
	t.Parallel()
	fake := &fakeEmbeddings{dim: 16}
	fake.delay.Store(int64(time.Second))
	root := t.TempDir()
	const total = 3000
	for i := range total {
		if err := os.WriteFile(filepath.Join(root, fmt.Sprintf("note-%04d.txt", i)), []byte(fmt.Sprintf("Note %d about the tides.", i)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s := stack.Start(t, slowEmbedderConfig(t, fake, root), true)

	r := s.Do(t, http.MethodPost, "/tools/rag_index_directory", map[string]any{"directory_path": root, "kb_name": "notes"})
	id, _ := r.JSON["job_id"].(string)
	if r.Status != http.StatusAccepted {
		t.Fatalf("index directory: %d %s", r.Status, r.Body)
	}
	deadline := time.Now().Add(time.Minute)
	for { // until its first file is enqueued
		if _, err := s.Queue.Inspector().GetTaskInfo(s.Queue.Name(), id+".0"); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the directory enqueued no file")
		}
		time.Sleep(2 * time.Millisecond)
	}
	if r = s.Do(t, http.MethodPost, "/jobs/"+id+"/cancel", nil); r.Status != 200 {
		t.Fatalf("cancel: %d %s", r.Status, r.Body)
	}

	job := jobState(t, s, id)
	n := len(job.Children)
	if job.Status != ragd.JobCancelled || n == 0 || n >= total || countStatus(job.Children, ragd.JobCancelled)+countStatus(job.Children, ragd.JobCompleted) != n {
		t.Fatalf("after the cancel: status %s, %d of %d files enqueued, %d cancelled, %d completed", job.Status, n, total,
			countStatus(job.Children, ragd.JobCancelled), countStatus(job.Children, ragd.JobCompleted))
	}
	t.Logf("stopped after enqueueing %d of %d files", n, total)
	if _, err := s.Queue.Inspector().GetTaskInfo(s.Queue.Name(), fmt.Sprintf("%s.%d", id, n)); err == nil {
		t.Errorf("a file job beyond the %d recorded exists", n)
	}
	if info, err := s.Queue.Inspector().GetQueueInfo(s.Queue.Name()); err != nil || info.Pending+info.Active+info.Retry != 0 {
		t.Fatalf("tasks left to run: %+v %v", info, err)
	}
}

// A job cancelled while it waits to retry, after an attempt that wrote
// some chunks and failed, never runs the pipeline again, and what the
// failed attempt wrote is removed.
func TestCancelRetryingJobRemovesWhatItWrote(t *testing.T) {
	t.Parallel()
	fake := &fakeEmbeddings{dim: 16}
	fake.down.Store(4) // three batches written, then the embedder is down
	root := t.TempDir()
	path := filepath.Join(root, "godebug.md")
	testenv.CopyFile(t, testenv.GorootFile(t, "doc/godebug.md"), path)
	s := stack.Start(t, slowEmbedderConfig(t, fake, root), true)

	r := s.Do(t, http.MethodPost, "/tools/rag_index", map[string]any{"file_path": path, "kb_name": "retrying"})
	id, _ := r.JSON["job_id"].(string)
	docID, _ := r.JSON["document_id"].(string)
	waitJobUntil(t, s, id, "waited to retry", func(j ragd.Job) bool { return j.Status == ragd.JobRetry })
	if n := s.ChunkCount(t, "retrying", docID); n == 0 {
		t.Fatal("the failed attempt wrote nothing")
	}
	requests := fake.requests.Load()
	if r = s.Do(t, http.MethodPost, "/jobs/"+id+"/cancel", nil); r.Status != 200 {
		t.Fatalf("cancel: %d %s", r.Status, r.Body)
	}
	deadline := time.Now().Add(time.Minute)
	for s.ChunkCount(t, "retrying", docID) != 0 {
		if time.Now().After(deadline) {
			t.Fatalf("%d chunks of the cancelled job still stored", s.ChunkCount(t, "retrying", docID))
		}
		time.Sleep(50 * time.Millisecond)
	}
	for {
		if _, err := s.Queue.Inspector().GetTaskInfo(s.Queue.Name(), id); err != nil {
			break // revoked once it had cleaned up
		}
		if time.Now().After(deadline) {
			t.Fatal("the cancelled task is still in the queue")
		}
		time.Sleep(50 * time.Millisecond)
	}
	if job := jobState(t, s, id); job.Status != ragd.JobCancelled || fake.requests.Load() != requests {
		t.Fatalf("after the cancel: %+v; %d embedder requests since", job, fake.requests.Load()-requests)
	}
	if r := s.Do(t, http.MethodGet, "/documents/"+docID, nil); r.Status != 404 {
		t.Fatalf("document of the cancelled job: %d %s", r.Status, r.Body)
	}
}
