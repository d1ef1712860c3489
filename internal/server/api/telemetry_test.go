package api_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"ragd"
	"ragd/internal/testkit/collector"
	"ragd/internal/testkit/stack"
	"ragd/internal/testkit/testenv"
)

// The caller's span, as a client's traceparent names it.
const (
	callerTrace  = "4bf92f3577b34da6a3ce929d0e0e4736"
	callerSpan   = "00f067aa0ba902b7"
	callerParent = "00-" + callerTrace + "-" + callerSpan + "-01"
)

// What the test's document says and what its searches ask: no span may
// carry either.
const (
	secretDocument = "The lighthouse keeper polished the brass lens every evening before the storm came in."
	secretQuery    = "brass lens polished by the keeper"
)

// tracedStack is a whole ragd exporting its spans to a receiver of the
// test's, logging into logs.
func tracedStack(t *testing.T, logs *testenv.Buffer, roots ...string) (*stack.Stack, *collector.Collector) {
	t.Helper()
	col := collector.Start(t)
	cfg := stack.Config(t, roots...)
	cfg.Telemetry.OTLPEndpoint = col.URL()
	return stack.StartWithLogger(t, cfg, true, slog.New(slog.NewTextHandler(logs, nil))), col
}

// tracedPost posts body to path with the caller's traceparent.
func tracedPost(t *testing.T, s *stack.Stack, path string, body any) stack.Response {
	t.Helper()
	raw, _ := json.Marshal(body)
	req, _ := http.NewRequest(http.MethodPost, s.URL+path, bytes.NewReader(raw))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("traceparent", callerParent)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	out := stack.Response{Status: resp.StatusCode}
	_ = json.NewDecoder(resp.Body).Decode(&out.JSON)
	return out
}

// spansOf flushes the stack's spans until done holds of those received.
func spansOf(t *testing.T, s *stack.Stack, col *collector.Collector, done func([]collector.Span) bool) []collector.Span {
	t.Helper()
	col.Wait(t, time.Minute, func(spans []collector.Span) bool {
		if done(spans) {
			return true
		}
		_ = s.Telemetry.ForceFlush(context.Background())
		return done(col.Spans())
	})
	return col.Spans()
}

// only is the one span called name among spans, failing t if there is
// not exactly one.
func only(t *testing.T, spans []collector.Span, name string) collector.Span {
	t.Helper()
	found := collector.Named(spans, name)
	if len(found) != 1 {
		t.Fatalf("%d spans %q, want 1:\n%s", len(found), name, collector.Tree(spans))
	}
	return found[0]
}

// wantAttrs fails t unless s has each attribute given.
func wantAttrs(t *testing.T, s collector.Span, want map[string]string) {
	t.Helper()
	for k, v := range want {
		if s.Attrs[k] != v {
			t.Errorf("span %s: %s = %q, want %q (attributes %v)", s.Name, k, s.Attrs[k], v, s.Attrs)
		}
	}
}

// noText fails t if any span, event or status carries words of the
// query or the document.
func noText(t *testing.T, spans []collector.Span) {
	t.Helper()
	for _, s := range spans {
		texts := []string{s.StatusMessage}
		for k, v := range s.Attrs {
			texts = append(texts, k+"="+v)
		}
		for _, e := range s.Events {
			for k, v := range e.Attrs {
				texts = append(texts, k+"="+v)
			}
		}
		for _, x := range texts {
			for _, word := range []string{"lighthouse", "brass", "polished"} {
				if strings.Contains(strings.ToLower(x), word) {
					t.Errorf("span %s carries text of the query or the document: %q", s.Name, x)
				}
			}
		}
	}
}

// A REST search continues the caller's trace: the request's span holds
// what an operator filters on, and under it the plan, the cache lookup
// (and its Redis command), the query's embedding (the embedder's call)
// and the retrieval (Weaviate's search). Repeated, it is a cache hit and
// retrieves nothing. No span carries the query or the document.
func TestRESTSearchTrace(t *testing.T) {
	t.Parallel()
	var logs testenv.Buffer
	s, col := tracedStack(t, &logs)
	if r := s.Do(t, http.MethodPost, "/tools/rag_index", map[string]any{"text": secretDocument, "kb_name": "harbour", "wait": true}); r.Status != http.StatusOK {
		t.Fatalf("rag_index: %d %s", r.Status, r.Body)
	}
	for range 2 {
		if r := tracedPost(t, s, "/tools/rag_search", map[string]any{"query": secretQuery, "kb_name": "harbour", "top_k": 3}); r.Status != http.StatusOK || num(r.JSON, "count") != 1 {
			t.Fatalf("rag_search: %d %v", r.Status, r.JSON)
		}
	}
	spans := spansOf(t, s, col, func(spans []collector.Span) bool {
		return len(collector.Named(collector.Trace(spans, callerTrace), "POST /tools/rag_search")) == 2
	})
	trace := collector.Trace(spans, callerTrace)
	t.Logf("the searches' trace:\n%s", collector.Tree(trace))
	requests := collector.Named(trace, "POST /tools/rag_search")
	first, second := requests[0], requests[1]
	if first.Start.After(second.Start) {
		first, second = second, first
	}
	for _, r := range requests {
		if r.ParentID != callerSpan || r.Kind != "SERVER" {
			t.Errorf("request span %s: parent %s kind %s, want the caller's child, a server span", r.Name, r.ParentID, r.Kind)
		}
		wantAttrs(t, r, map[string]string{"ragd.namespace": "harbour", "ragd.search.mode": "hybrid", "ragd.search.top_k": "3",
			"ragd.tool": "rag_search", "http.route": "/tools/rag_search", "http.response.status_code": "200"})
	}
	wantAttrs(t, first, map[string]string{"ragd.cache.hit": "false"})
	wantAttrs(t, second, map[string]string{"ragd.cache.hit": "true"})

	kids := collector.Children(trace, first)
	for _, name := range []string{"search.plan", "cache.lookup", "search.embed_query", "search.retrieve"} {
		if len(collector.Named(kids, name)) != 1 {
			t.Errorf("no %s under the first search:\n%s", name, collector.Tree(trace))
		}
	}
	if t.Failed() {
		return
	}
	lookup := collector.Named(kids, "cache.lookup")[0]
	if len(collector.Named(collector.Children(trace, lookup), "mget")) != 1 {
		t.Errorf("no Redis MGET under the cache lookup")
	}
	embedQuery := collector.Named(kids, "search.embed_query")[0]
	embed := collector.Children(trace, embedQuery)
	if len(embed) != 1 || embed[0].Name != "embedder.embed" || embed[0].Kind != "CLIENT" {
		t.Errorf("under search.embed_query: %v, want the embedder's call", embed)
	} else {
		wantAttrs(t, embed[0], map[string]string{"ragd.embed.texts": "1", "ragd.breaker.state": "closed", "ragd.dependency": "embedder"})
	}
	retrieve := collector.Named(kids, "search.retrieve")[0]
	var weaviate []collector.Span
	for _, w := range collector.Named(trace, "weaviate.search") {
		if collector.Under(trace, w, retrieve) {
			weaviate = append(weaviate, w)
		}
	}
	if len(weaviate) == 0 {
		t.Errorf("no weaviate.search under search.retrieve")
	} else {
		wantAttrs(t, weaviate[0], map[string]string{"ragd.namespace": "harbour", "ragd.search.mode": "hybrid", "ragd.breaker.state": "closed"})
	}
	wantAttrs(t, retrieve, map[string]string{"ragd.search.results": "1"})
	if n := len(collector.Children(trace, second)); collector.Named(collector.Children(trace, second), "search.retrieve") != nil || n == 0 {
		t.Errorf("the cached search retrieved again, or has no children:\n%s", collector.Tree(trace))
	}
	noText(t, col.Spans())
}

// A directory ingest is one trace from the request on: the directory
// job's run (after its wait in the queue) under the request, and each
// file's job under the directory job's fan-out, linked to the directory
// job, with a span per stage. GET /jobs/{id} gives the trace's id for the
// directory and its files, and the worker's log lines carry it.
func TestDirectoryIngestTrace(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	writeFile(t, filepath.Join(root, "docs", "keeper.md"), "# The keeper\n\n"+secretDocument+"\n")
	writeFile(t, filepath.Join(root, "docs", "notes.txt"), "Tide tables for the harbour, printed weekly.\n")
	var logs testenv.Buffer
	s, col := tracedStack(t, &logs, root)
	r := tracedPost(t, s, "/tools/rag_index_directory", map[string]any{"directory_path": filepath.Join(root, "docs"), "kb_name": "harbour"})
	if r.Status != http.StatusAccepted {
		t.Fatalf("rag_index_directory: %d %v", r.Status, r.JSON)
	}
	id := str(r.JSON, "job_id")
	job := s.WaitJob(t, id, 2*time.Minute)
	if job.Status != ragd.JobCompleted || len(job.Children) != 2 {
		t.Fatalf("directory job: %+v", job)
	}
	if job.TraceID != callerTrace {
		t.Errorf("GET /jobs/%s: trace_id %q, want the request's %s", id, job.TraceID, callerTrace)
	}
	for _, c := range job.Children {
		if file := decodeJob(t, s.Do(t, http.MethodGet, "/jobs/"+c.ID, nil)); file.TraceID != callerTrace {
			t.Errorf("GET /jobs/%s (a file, read from its outcome): trace_id %q, want %s", c.ID, file.TraceID, callerTrace)
		}
	}
	spans := spansOf(t, s, col, func(spans []collector.Span) bool {
		return len(collector.Named(collector.Trace(spans, callerTrace), "ingest.commit")) == 2 &&
			len(collector.Named(collector.Trace(spans, callerTrace), "job ingest:document")) == 2
	})
	trace := collector.Trace(spans, callerTrace)
	t.Logf("the ingest's trace:\n%s", collector.Tree(trace))

	request := only(t, trace, "POST /tools/rag_index_directory")
	if request.ParentID != callerSpan {
		t.Errorf("request span's parent %s, want the caller's %s", request.ParentID, callerSpan)
	}
	enqueue := only(t, trace, "jobs.enqueue ingest:directory")
	wait, run := only(t, trace, "job.wait ingest:directory"), only(t, trace, "job ingest:directory")
	if enqueue.Kind != "PRODUCER" || !collector.Under(trace, enqueue, request) || wait.ParentID != enqueue.SpanID || run.ParentID != enqueue.SpanID || run.Kind != "CONSUMER" {
		t.Errorf("directory job: want its enqueue (a producer) under the request, its wait and its run (a consumer) under the enqueue")
	}
	wantAttrs(t, run, map[string]string{"ragd.job.id": id, "ragd.job.type": "ingest:directory", "ragd.namespace": "harbour",
		"ragd.job.attempt": "1", "ragd.status": "completed"})
	walk := only(t, trace, "ingest.walk")
	if walk.ParentID != run.SpanID || walk.Attrs["ragd.files"] != "2" {
		t.Errorf("walk %+v: want the directory run's child, with 2 files", walk)
	}
	files := collector.Named(trace, "job ingest:document")
	upserts := 0
	for _, f := range files {
		fileEnqueue, ok := collector.Parent(trace, f)
		if !ok || fileEnqueue.Name != "jobs.enqueue ingest:document" || fileEnqueue.ParentID != run.SpanID {
			t.Errorf("file job %s: want it under its enqueue, under the directory job's run", f.Attrs["ragd.job.id"])
		}
		if len(f.Links) != 1 || f.Links[0].SpanID != run.SpanID || f.Attrs["ragd.job.parent_id"] != id || f.Attrs["ragd.document.id"] == "" {
			t.Errorf("file job %s: links %v, parent_id %q: want a link to the directory job's run", f.Attrs["ragd.job.id"], f.Links, f.Attrs["ragd.job.parent_id"])
		}
		stages := map[string]collector.Span{}
		for _, k := range collector.Children(trace, f) {
			stages[k.Name] = k
		}
		for _, name := range []string{"ingest.read", "ingest.lock", "ingest.chunk", "ingest.write", "ingest.images", "ingest.commit"} {
			if _, ok := stages[name]; !ok {
				t.Errorf("file job %s: no %s", f.Attrs["ragd.job.id"], name)
			}
		}
		// Its chunks go to Weaviate in a batch it may share with the other
		// file's (worker.BatchWriter): the write is traced under the span of
		// the batch's first writer.
		var batch, embed bool
		for _, w := range collector.Children(trace, stages["ingest.write"]) {
			embed = embed || w.Name == "embedder.embed"
			if w.Name == "ingest.batch" && w.Attrs["ragd.batch.chunks"] != "" {
				batch = true
				for _, u := range collector.Children(trace, w) {
					upserts += map[bool]int{true: 1}[u.Name == "weaviate.upsert"]
				}
			}
		}
		if !batch || !embed {
			t.Errorf("file job %s: ingest.write without its embedder call and its batch", f.Attrs["ragd.job.id"])
		}
		if stages["ingest.chunk"].Attrs["ragd.chunks"] == "" || stages["ingest.read"].Attrs["ragd.document.source_type"] == "" {
			t.Errorf("file job %s: chunk %v read %v: want chunk counts and source type", f.Attrs["ragd.job.id"], stages["ingest.chunk"].Attrs, stages["ingest.read"].Attrs)
		}
	}
	if upserts == 0 {
		t.Errorf("no weaviate.upsert under any file's batch")
	}
	if len(collector.Named(trace, "job.wait ingest:document")) != 2 {
		t.Errorf("want each file's wait in the queue")
	}
	noText(t, col.Spans())
	for _, line := range strings.Split(logs.String(), "\n") {
		if strings.Contains(line, "document indexed") && !strings.Contains(line, "trace_id="+callerTrace) {
			t.Errorf("a worker's log line without the trace: %s", line)
		}
	}
	if !strings.Contains(logs.String(), "document indexed") {
		t.Errorf("no log line of the worker's")
	}
}

// A collector that accepts connections and never answers fails no
// request and slows none past its export's own bound: spans are exported
// in the background.
func TestUnreachableCollectorFailsNoRequest(t *testing.T) {
	t.Parallel()
	cfg := stack.Config(t)
	cfg.Telemetry.OTLPEndpoint = "http://" + collector.Unanswering(t)
	s := stack.Start(t, cfg, true)
	start := time.Now()
	if r := s.Do(t, http.MethodPost, "/tools/rag_index", map[string]any{"text": secretDocument, "wait": true}); r.Status != http.StatusOK {
		t.Fatalf("rag_index: %d %s", r.Status, r.Body)
	}
	for range 20 {
		if r := tracedPost(t, s, "/tools/rag_search", map[string]any{"query": secretQuery}); r.Status != http.StatusOK {
			t.Fatalf("rag_search: %d %v", r.Status, r.JSON)
		}
	}
	if d := time.Since(start); d > 30*time.Second {
		t.Errorf("an ingest and 20 searches took %s with the collector silent", d)
	}
}

// A scanned PDF's read has a span per page OCR read, one after the other.
func TestScannedPDFTrace(t *testing.T) {
	testenv.RequireOCR(t)
	t.Parallel()
	root := t.TempDir()
	var logs testenv.Buffer
	s, col := tracedStack(t, &logs, root)
	path := writeFile(t, filepath.Join(root, "two.pdf"), string(testenv.ScannedPDF(t,
		testenv.ScanPage{Lines: scanLines}, testenv.ScanPage{Lines: []string{"Minutes of the harbour board meeting."}})))
	if r := tracedPost(t, s, "/tools/rag_index", map[string]any{"file_path": path, "wait": true}); r.Status != http.StatusOK {
		t.Fatalf("rag_index: %d %v", r.Status, r.JSON)
	}
	spans := spansOf(t, s, col, func(spans []collector.Span) bool {
		return len(collector.Named(collector.Trace(spans, callerTrace), "job ingest:document")) == 1
	})
	trace := collector.Trace(spans, callerTrace)
	read := only(t, trace, "ingest.read")
	pages := collector.Children(trace, read)
	if len(pages) != 2 || pages[0].Name != "ingest.ocr_page" || read.Attrs["ragd.document.pages_ocr"] != "2" {
		t.Fatalf("under ingest.read: want 2 OCR pages:\n%s", collector.Tree(trace))
	}
	if pages[0].Start.After(pages[1].Start) {
		pages[0], pages[1] = pages[1], pages[0]
	}
	for i, p := range pages {
		wantAttrs(t, p, map[string]string{"ragd.page": fmt.Sprint(i + 1), "ragd.pages": "2"})
	}
	if !pages[1].Start.Equal(pages[0].End) || pages[0].Start.Before(read.Start) || pages[1].End.After(read.End) {
		t.Errorf("pages %s–%s and %s–%s in a read of %s–%s: want them one after the other, within the read",
			pages[0].Start, pages[0].End, pages[1].Start, pages[1].End, read.Start, read.End)
	}
}

// A job retried after a transient failure shows each run as a span of
// its own, under the same enqueue: the first ends as a retry, failed, the
// second completed.
func TestRetriedJobTrace(t *testing.T) {
	t.Parallel()
	var asked atomic.Int32
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if asked.Add(1) == 1 {
			http.Error(w, "busy", http.StatusServiceUnavailable)
			return
		}
		w.Header().Set("Content-Type", "text/plain")
		_, _ = w.Write([]byte("Tide tables for the harbour, printed weekly."))
	}))
	t.Cleanup(site.Close)
	col := collector.Start(t)
	cfg := stack.Config(t)
	cfg.Telemetry.OTLPEndpoint = col.URL()
	cfg.Ingest.AllowPrivateURLs = true
	s := stack.Start(t, cfg, true)
	r := tracedPost(t, s, "/tools/rag_index", map[string]any{"url": site.URL + "/tides.txt"})
	if r.Status != http.StatusAccepted {
		t.Fatalf("rag_index: %d %v", r.Status, r.JSON)
	}
	if job := s.WaitJob(t, str(r.JSON, "job_id"), time.Minute); job.Status != ragd.JobCompleted || job.Retried != 1 {
		t.Fatalf("job: %+v, want completed after one retry", job)
	}
	spans := spansOf(t, s, col, func(spans []collector.Span) bool {
		return len(collector.Named(collector.Trace(spans, callerTrace), "job ingest:document")) == 2
	})
	trace := collector.Trace(spans, callerTrace)
	t.Logf("the retried job's trace:\n%s", collector.Tree(trace))
	runs := collector.Named(trace, "job ingest:document")
	if runs[0].Start.After(runs[1].Start) {
		runs[0], runs[1] = runs[1], runs[0]
	}
	enqueue := only(t, trace, "jobs.enqueue ingest:document")
	wantAttrs(t, runs[0], map[string]string{"ragd.job.attempt": "1", "ragd.status": "retry"})
	wantAttrs(t, runs[1], map[string]string{"ragd.job.attempt": "2", "ragd.status": "completed"})
	if runs[0].Status != "error" || runs[1].Status == "error" || runs[0].ParentID != enqueue.SpanID || runs[1].ParentID != enqueue.SpanID {
		t.Errorf("runs: want the first failed, the second not, both under the enqueue")
	}
	if n := len(collector.Named(trace, "job.wait ingest:document")); n != 1 {
		t.Errorf("%d waits, want the first run's only", n)
	}
}
