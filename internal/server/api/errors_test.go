package api_test

import (
	"bytes"
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"ragd/internal/testkit/stack"
)

// Every bad input gets a clear message with the right status, and nothing is
// enqueued for it.
func TestBadInput(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	outside := t.TempDir()
	writeFile(t, filepath.Join(root, "ok.txt"), "fine")
	writeFile(t, filepath.Join(root, "tool.exe"), "MZ")
	writeFile(t, filepath.Join(outside, "secret.txt"), "secret")
	if err := os.Symlink(filepath.Join(outside, "secret.txt"), filepath.Join(root, "escape.txt")); err != nil {
		t.Fatal(err)
	}
	cfg := stack.Config(t, root)
	cfg.HTTP.MaxBodyBytes = 4096
	s := stack.Start(t, cfg, false) // no worker: nothing may be enqueued

	cases := []struct {
		name    string
		path    string
		body    any
		status  int
		loc     string // for 422: the field named in detail[0].loc
		message string // a substring of the message
	}{
		{"malformed JSON", "/tools/rag_index", []byte(`{"text": "abc"`), 400, "", "malformed JSON"},
		{"two JSON values", "/tools/rag_search", []byte(`{"query":"a"} {}`), 400, "", "malformed JSON"},
		{"empty body", "/tools/rag_index", []byte(``), 422, "body", "required"},
		{"body is an array", "/tools/rag_search", []byte(`["query"]`), 422, "body", "JSON object"},
		{"nothing to index", "/tools/rag_index", map[string]any{"kb_name": "x"}, 422, "file_path", "one of file_path, url or text"},
		{"two sources", "/tools/rag_index", map[string]any{"text": "a", "url": "https://example.com"}, 422, "file_path", "only one"},
		{"blank text", "/tools/rag_index", map[string]any{"text": "   "}, 422, "text", "empty"},
		{"text of wrong type", "/tools/rag_index", map[string]any{"text": 42}, 422, "text", "must be a string"},
		{"force of wrong type", "/tools/rag_index", map[string]any{"text": "a", "force": "yes"}, 422, "force", "must be a boolean"},
		{"bad kb_name", "/tools/rag_index", map[string]any{"text": "a", "kb_name": "Bad Name!"}, 422, "kb_name", "not a valid namespace"},
		{"dot-dot path", "/tools/rag_index", map[string]any{"file_path": filepath.Join(root, "..", filepath.Base(outside), "secret.txt")}, 403, "", root},
		{"absolute path outside roots", "/tools/rag_index", map[string]any{"file_path": filepath.Join(outside, "secret.txt")}, 403, "", root},
		{"symlink leaving the root", "/tools/rag_index", map[string]any{"file_path": filepath.Join(root, "escape.txt")}, 403, "", root},
		{"missing file", "/tools/rag_index", map[string]any{"file_path": filepath.Join(root, "nope.txt")}, 422, "file_path", "no such file"},
		{"unsupported extension", "/tools/rag_index", map[string]any{"file_path": filepath.Join(root, "tool.exe")}, 422, "file_path", "unsupported file type"},
		{"loopback URL", "/tools/rag_index", map[string]any{"url": "http://127.0.0.1:6379/"}, 403, "", "allow_private_urls"},
		{"private URL", "/tools/rag_index", map[string]any{"url": "http://10.1.2.3/doc.html"}, 403, "", "private"},
		{"link-local URL", "/tools/rag_index", map[string]any{"url": "http://169.254.169.254/latest/meta-data"}, 403, "", "169.254.169.254"},
		{"localhost URL", "/tools/rag_index", map[string]any{"url": "http://localhost:8000/"}, 403, "", "loopback"},
		{"non-http URL", "/tools/rag_index", map[string]any{"url": "file:///etc/passwd"}, 422, "url", "http"},
		{"directory missing", "/tools/rag_index_directory", map[string]any{}, 422, "directory_path", "required"},
		{"directory outside roots", "/tools/rag_index_directory", map[string]any{"directory_path": outside}, 403, "", root},
		{"directory is a file", "/tools/rag_index_directory", map[string]any{"directory_path": filepath.Join(root, "ok.txt")}, 422, "directory_path", "not a directory"},
		{"recursive of wrong type", "/tools/rag_index_directory", map[string]any{"directory_path": root, "recursive": "no"}, 422, "recursive", "boolean"},
		{"query missing", "/tools/rag_search", map[string]any{"top_k": 3}, 422, "query", "required"},
		{"top_k zero", "/tools/rag_search", map[string]any{"query": "a", "top_k": 0}, 422, "top_k", "between 1 and 20"},
		{"top_k too big", "/tools/rag_search", map[string]any{"query": "a", "top_k": 21}, 422, "top_k", "between 1 and 20"},
		{"top_k a string", "/tools/rag_search", map[string]any{"query": "a", "top_k": "5"}, 422, "top_k", "integer"},
		{"top_k a fraction", "/tools/rag_search", map[string]any{"query": "a", "top_k": 2.5}, 422, "top_k", "integer"},
		{"huge body", "/tools/rag_index", map[string]any{"text": strings.Repeat("a", 5000)}, 413, "", "exceeds 4096 bytes"},
		{"unknown job", "/jobs/no-such-job", nil, 404, "", "not found"},
		{"unknown route", "/tools/rag_nothing", map[string]any{}, 404, "", "not found"},
	}
	for _, c := range cases {
		method := http.MethodPost
		if c.body == nil {
			method = http.MethodGet
		}
		resp := s.Do(t, method, c.path, c.body)
		if resp.Status != c.status {
			t.Errorf("%s: status %d, want %d: %s", c.name, resp.Status, c.status, resp.Body)
			continue
		}
		if bytes.Contains(resp.Body, []byte("goroutine ")) || bytes.Contains(resp.Body, []byte(".go:")) {
			t.Errorf("%s: response leaks internals: %s", c.name, resp.Body)
		}
		if c.status == 422 {
			detail, ok := resp.JSON["detail"].([]any)
			if !ok || len(detail) == 0 {
				t.Errorf("%s: 422 detail is not a list: %s", c.name, resp.Body)
				continue
			}
			first, _ := detail[0].(map[string]any)
			loc, _ := first["loc"].([]any)
			if len(loc) == 0 || loc[len(loc)-1] != c.loc || str(first, "type") == "" {
				t.Errorf("%s: loc %v type %q, want loc ending %q: %s", c.name, loc, str(first, "type"), c.loc, resp.Body)
			}
			if !strings.Contains(str(first, "msg"), c.message) {
				t.Errorf("%s: msg %q lacks %q", c.name, str(first, "msg"), c.message)
			}
			continue
		}
		if !strings.Contains(str(resp.JSON, "detail"), c.message) {
			t.Errorf("%s: detail %q lacks %q", c.name, str(resp.JSON, "detail"), c.message)
		}
	}
	stats, err := s.Queue.Stats(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if stats.Pending != 0 {
		t.Fatalf("%d jobs were enqueued for bad requests", stats.Pending)
	}
}

// With allow_private_urls a URL on loopback is fetched and indexed.
func TestURLIngestWhenPrivateAllowed(t *testing.T) {
	t.Parallel()
	page := `<html><head><title>Lighthouse keeping</title></head><body><h1>Lighthouse keeping</h1>
<h2>Lamps</h2><p>The keeper trims the wick of the Fresnel lamp every evening.</p></body></html>`
	srv := newPageServer(t, map[string]string{"/guide.html": page})
	cfg := stack.Config(t)
	cfg.Ingest.AllowPrivateURLs = true
	s := stack.Start(t, cfg, true)
	resp := s.Do(t, http.MethodPost, "/tools/rag_index", map[string]any{"url": srv + "/guide.html", "wait": true})
	if resp.Status != http.StatusOK || num(resp.JSON, "chunks_indexed") != 1 {
		t.Fatalf("url ingest: %d %s", resp.Status, resp.Body)
	}
	r := search(t, s, "Fresnel lamp wick", "", 1)
	if len(r) != 1 || str(r[0], "path") != "Lighthouse keeping > Lamps" || !strings.HasPrefix(str(r[0], "source"), "http://127.0.0.1") {
		t.Fatalf("url chunk: %v", r)
	}
	// A 404 ends the job failed with the status in the error, at once.
	resp = s.Do(t, http.MethodPost, "/tools/rag_index", map[string]any{"url": srv + "/missing.html", "wait": true})
	if resp.Status != http.StatusUnprocessableEntity || !strings.Contains(str(resp.JSON, "detail"), "404") {
		t.Fatalf("url 404: %d %s", resp.Status, resp.Body)
	}
}
