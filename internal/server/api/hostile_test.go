package api_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"ragd"
	"ragd/internal/testkit/stack"
	"ragd/internal/testkit/testenv"
)

// postWithin posts body and fails the test, rather than hang, when no
// answer comes within a generous bound.
func postWithin(t *testing.T, s *stack.Stack, path string, body any) stack.Response {
	t.Helper()
	raw, _ := json.Marshal(body)
	client := &http.Client{Timeout: 20 * time.Second}
	resp, err := client.Post(s.URL+path, "application/json", bytes.NewReader(raw))
	if err != nil {
		t.Fatalf("POST %s: %v (a request that never answers)", path, err)
	}
	defer resp.Body.Close()
	out := stack.Response{Status: resp.StatusCode, Header: resp.Header}
	out.Body, _ = io.ReadAll(resp.Body)
	_ = json.Unmarshal(out.Body, &out.JSON)
	return out
}

// A named pipe in an ingest root is refused by type at request time; it
// used to block the handler in open(2) for ever, one thread per request.
func TestFIFOIsRefusedAtRequestTime(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	s := stack.Start(t, stack.Config(t, root), false)
	if err := os.MkdirAll(filepath.Join(root, "x"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(root, "x", "p.txt"), 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	for i := 0; i < 3; i++ {
		resp := postWithin(t, s, "/tools/rag_index", map[string]any{"file_path": "x/p.txt"})
		if resp.Status != http.StatusUnprocessableEntity || !strings.Contains(string(resp.Body), "named pipe (FIFO)") {
			t.Fatalf("FIFO: %d %s", resp.Status, resp.Body)
		}
	}
	resp := postWithin(t, s, "/tools/rag_index", map[string]any{"file_path": "/dev/zero"})
	if resp.Status != http.StatusForbidden {
		t.Fatalf("/dev/zero outside the roots: %d %s", resp.Status, resp.Body)
	}
}

// Hostile PDFs fail their own jobs with a clear error within the parse
// bounds, and the worker goes on to index the next document.
func TestHostilePDFsFailAloneAndWorkerGoesOn(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	cfg := stack.Config(t, root)
	cfg.Ingest.ParseTimeout = 3 * time.Second
	s := stack.Start(t, cfg, true)
	dir := filepath.Join(root, "hostile")
	writeFile(t, filepath.Join(dir, "cycle.pdf"), string(testenv.CyclicPDF()))
	writeFile(t, filepath.Join(dir, "count.pdf"), string(testenv.HugeCountPDF(2000000)))
	writeFile(t, filepath.Join(dir, "slow.pdf"), string(testenv.SlowPDF(256)))
	writeFile(t, filepath.Join(dir, "notes.txt"), "Plain notes between hostile files.")

	resp := s.Do(t, http.MethodPost, "/tools/rag_index_directory", map[string]any{"directory_path": dir, "wait": true})
	if resp.Status != http.StatusOK || num(resp.JSON, "files_total") != 4 || num(resp.JSON, "files_failed") != 3 {
		t.Fatalf("directory: %d %s", resp.Status, resp.Body)
	}
	want := map[string]string{
		"cycle.pdf": "a /Kids cycle",
		"count.pdf": "declares 2000000 pages, more than ingest.max_pages (5000)",
		"slow.pdf":  "longer than ingest.parse_timeout (3s)",
	}
	job := decodeJob(t, s.Do(t, http.MethodGet, "/jobs/"+str(resp.JSON, "job_id"), nil))
	for _, c := range job.Children {
		base := filepath.Base(c.FilePath)
		if msg, hostile := want[base]; hostile {
			if c.Status != ragd.JobFailed || !strings.Contains(c.Error, msg) {
				t.Errorf("%s: %+v, want failed with %q", base, c, msg)
			}
		} else if c.Status != ragd.JobCompleted {
			t.Errorf("%s: %+v", base, c)
		}
	}
	// the worker is healthy: the next document indexes and is found
	next := s.Do(t, http.MethodPost, "/tools/rag_index", map[string]any{"text": "After the storm the worker indexed zanzibar notes.", "wait": true})
	if next.Status != http.StatusOK {
		t.Fatalf("next document: %d %s", next.Status, next.Body)
	}
	if results := search(t, s, "zanzibar", "", 3); len(results) == 0 {
		t.Fatal("next document not found")
	}
}

// Titles and tags are bounded, and a refused URL request never makes ragd
// resolve the host: every other check comes first.
func TestIngestLabelsAreBoundedAndURLResolvedLast(t *testing.T) {
	t.Parallel()
	s := stack.Start(t, stack.Config(t), false)
	manyTags := make([]string, 10000)
	for i := range manyTags {
		manyTags[i] = "t"
	}
	// .invalid never resolves (RFC 2606): had ragd looked it up, the
	// answer would be about the host.
	const host = "http://ragd-lookup-canary.invalid/doc"
	for _, tc := range []struct {
		body  map[string]any
		field string
	}{
		{map[string]any{"text": "a titled text", "title": strings.Repeat("T", 1<<20)}, "title"},
		{map[string]any{"text": "a tagged text", "tags": manyTags}, "tags"},
		{map[string]any{"url": host, "title": strings.Repeat("T", 1001)}, "title"},
		{map[string]any{"url": host, "tags": manyTags}, "tags"},
		{map[string]any{"url": host, "tags": []string{strings.Repeat("x", 101)}}, "tags"},
		{map[string]any{"url": host, "kb_name": "Not A Namespace"}, "kb_name"},
		// Bidirectional controls disguise what is shown.
		{map[string]any{"text": "a disguised title", "title": "invoice\u202Efdp.exe"}, "title"},
		{map[string]any{"url": host, "title": "\u2067isolated\u2069"}, "title"},
		{map[string]any{"text": "a disguised tag", "tags": []string{"ok", "final\u202Ethgir"}}, "tags"},
	} {
		resp := s.Do(t, http.MethodPost, "/tools/rag_index", tc.body)
		if resp.Status != http.StatusUnprocessableEntity || !strings.Contains(string(resp.Body), `"loc":["body","`+tc.field+`"]`) ||
			strings.Contains(string(resp.Body), "resolve") || strings.ContainsFunc(string(resp.Body), func(r rune) bool { return r == 0x202E }) {
			t.Errorf("%s: %d %.300s", tc.field, resp.Status, resp.Body)
		}
	}
	ok := s.Do(t, http.MethodPost, "/tools/rag_index", map[string]any{"text": "fine", "title": strings.Repeat("T", 1000), "tags": make100()})
	if ok.Status != http.StatusAccepted {
		t.Fatalf("at the bounds: %d %s", ok.Status, ok.Body)
	}
}

func make100() []string {
	tags := make([]string, 100)
	for i := range tags {
		tags[i] = strings.Repeat("x", 100)
	}
	return tags
}
