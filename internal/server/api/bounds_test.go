package api_test

import (
	"net/http"
	"strings"
	"testing"

	"ragd/internal/testkit/stack"
)

// Inline text over ingest.max_document_text_bytes is a 413 naming the
// setting and the figures, before any parse or job; at the bound it is
// indexed.
func TestInlineTextOverTheBoundIs413(t *testing.T) {
	t.Parallel()
	cfg := stack.ServiceConfig(t)
	cfg.Ingest.MaxDocumentTextBytes = 1024
	s := stack.StartService(t, cfg, false)
	text := strings.Repeat("lighthouse keeper ", 57)[:1024]
	r := s.Do(t, http.MethodPost, "/tools/rag_index", map[string]any{"text": text + "x"})
	want := "text: the document has 1025 bytes of text, more than ingest.max_document_text_bytes (1024)"
	if r.Status != http.StatusRequestEntityTooLarge || !strings.Contains(string(r.Body), want) {
		t.Fatalf("1025 bytes of text: %d %.300s, want 413 %q", r.Status, r.Body, want)
	}
	if r := s.Do(t, http.MethodPost, "/tools/rag_index", map[string]any{"text": text}); r.Status != http.StatusAccepted {
		t.Fatalf("1024 bytes of text: %d %.300s, want 202", r.Status, r.Body)
	}
}

// A URL over ingest.max_url_bytes is a 422 at url naming the setting and
// the figures, before its host is resolved; one at the bound is queued.
func TestLongURLIs422(t *testing.T) {
	t.Parallel()
	s := stack.StartService(t, stack.ServiceConfig(t), false)
	const head = "http://93.184.215.14/"
	url := head + strings.Repeat("a", 8192-len(head))
	r := s.Do(t, http.MethodPost, "/tools/rag_index", map[string]any{"url": url + "a"})
	want := "the URL has 8193 bytes, more than ingest.max_url_bytes (8192)"
	if r.Status != http.StatusUnprocessableEntity || !strings.Contains(string(r.Body), want) || !strings.Contains(string(r.Body), `"loc":["body","url"]`) {
		t.Fatalf("a URL of 8193 bytes: %d %.300s, want 422 at url %q", r.Status, r.Body, want)
	}
	if r := s.Do(t, http.MethodPost, "/tools/rag_index", map[string]any{"url": url}); r.Status != http.StatusAccepted {
		t.Fatalf("a URL of 8192 bytes: %d %.300s, want 202", r.Status, r.Body)
	}
}
