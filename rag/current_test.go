package rag_test

import (
	"net/http"
	"os"
	"path/filepath"
	"testing"

	"ragd"
	"ragd/internal/stack"
)

// Searches remember which version of a document is current for as long as
// the namespace's registry epoch stands. Every new version and every delete
// must still show at once, and a version being written must stay hidden
// however warm that memory is.
func TestSearchFollowsEveryVersion(t *testing.T) {
	root := t.TempDir()
	cfg := stack.Config(t, root)
	cfg.Cache.Enabled = false
	s := stack.Start(t, cfg, true)
	path := filepath.Join(root, "note.md")
	write := func(text string) string {
		t.Helper()
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		r := s.Do(t, http.MethodPost, "/tools/rag_index", map[string]any{"file_path": path, "kb_name": "v", "wait": true})
		if r.Status != http.StatusOK {
			t.Fatalf("index: %d %s", r.Status, r.Body)
		}
		return r.JSON["document_id"].(string)
	}
	only := func(query, want string) {
		t.Helper()
		for range 2 { // the second search answers from remembered versions
			got := search(t, s, "v", query, "keyword")
			if want == "" && len(got) == 0 {
				continue
			}
			if len(got) != 1 || got[0].Text != want {
				t.Fatalf("search %q = %+v, want only %q", query, got, want)
			}
		}
	}

	v1 := "Lighthouse keepers trimmed the wicks every evening."
	id := write(v1)
	only("lighthouse wicks", v1)

	v2 := "Lighthouse lamps now run on electricity and need no wicks."
	if write(v2) != id {
		t.Fatal("a changed file became another document")
	}
	only("lighthouse wicks", v2)

	// Chunks of a version not yet recorded as current (a writer between
	// its chunk writes and its registry commit) never show.
	pending := "Lighthouse wicks of a draft nobody committed."
	hash := ragd.ContentHash([]byte(pending))
	chunk := ragd.Chunk{ID: ragd.ChunkID(id, hash, 0), DocumentID: id, Namespace: "v", Source: path,
		SourceType: ragd.SourceMarkdown, ContentHash: hash, Text: pending}
	if err := s.Service.Store.Upsert(t.Context(), "v", []ragd.Chunk{chunk}); err != nil {
		t.Fatal(err)
	}
	only("lighthouse wicks", v2)

	if r := s.Do(t, http.MethodDelete, "/documents/"+id+"?kb_name=v", nil); r.Status != http.StatusOK {
		t.Fatalf("delete: %d %s", r.Status, r.Body)
	}
	only("lighthouse wicks", "")
}
