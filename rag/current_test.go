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

// A worker that dies after making a new version current but before it bumps
// the namespace's generation must not leave searches answered from the
// cache with the old version: the registry's epoch, which moved with the
// version, is part of the generation.
func TestCachedSearchFollowsVersionCommittedWithoutBump(t *testing.T) {
	root := t.TempDir()
	cfg := stack.Config(t, root)
	cfg.Cache.Enabled = true
	s := stack.Start(t, cfg, true)
	path := filepath.Join(root, "note.md")
	v1 := "Lighthouse keepers trimmed the wicks every evening."
	if err := os.WriteFile(path, []byte(v1), 0o644); err != nil {
		t.Fatal(err)
	}
	r := s.Do(t, http.MethodPost, "/tools/rag_index", map[string]any{"file_path": path, "kb_name": "c", "wait": true})
	if r.Status != http.StatusOK {
		t.Fatalf("index: %d %s", r.Status, r.Body)
	}
	id := r.JSON["document_id"].(string)
	for range 2 { // the second answer comes from the cache
		if got := search(t, s, "c", "lighthouse wicks", "keyword"); len(got) != 1 || got[0].Text != v1 {
			t.Fatalf("before: %+v", got)
		}
	}

	// What IndexDocument does up to the registry commit, then nothing more.
	v2 := "Lighthouse lamps now run on electricity and need no wicks."
	hash := ragd.ContentHash([]byte(v2))
	chunk := ragd.Chunk{ID: ragd.ChunkID(id, hash, 0), DocumentID: id, Namespace: "c", Source: path,
		SourceType: ragd.SourceMarkdown, ContentHash: hash, Text: v2}
	if err := s.Service.Store.Upsert(t.Context(), "c", []ragd.Chunk{chunk}); err != nil {
		t.Fatal(err)
	}
	if err := s.Service.Registry.Put(t.Context(), ragd.Document{ID: id, Namespace: "c", Source: path,
		SourceType: ragd.SourceMarkdown, ContentHash: hash, Chunks: 1}); err != nil {
		t.Fatal(err)
	}
	if got := search(t, s, "c", "lighthouse wicks", "keyword"); len(got) != 1 || got[0].Text != v2 {
		t.Fatalf("after the commit: %+v, want only %q", got, v2)
	}
}
