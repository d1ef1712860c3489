package api_test

import (
	"net/http"
	"path/filepath"
	"testing"

	"ragd"
	"ragd/internal/testkit/stack"
)

// A Markdown file of headings only is indexed with a chunk of its
// headings, so it is found and its namespace's export imports again
// (it was stored with 0 chunks, which the import refuses).
func TestHeadingOnlyDocumentRoundTrip(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	writeFile(t, filepath.Join(root, "notes", "3-tools.md"), "# Tools\n\n## Go\n\n## Rust {#rust}\n")
	writeFile(t, filepath.Join(root, "notes", "kestrel.md"), "# Kestrels\n\nThe kestrel hovers over meadows hunting voles.\n")
	s := archiveStack(t, nil, root)
	dir := s.Do(t, http.MethodPost, "/tools/rag_index_directory", map[string]any{"directory_path": filepath.Join(root, "notes"),
		"kb_name": "headings", "wait": true})
	if dir.Status != http.StatusOK {
		t.Fatalf("index directory: %d %s", dir.Status, dir.Body)
	}
	docs := documents(t, s, "headings")
	if len(docs) != 2 {
		t.Fatalf("indexed %d documents: %+v", len(docs), docs)
	}
	for _, d := range docs {
		if d.Chunks < 1 {
			t.Errorf("%s indexed with %d chunks", d.Source, d.Chunks)
		}
	}
	if r := searchMode(t, s, "tools rust", "headings", "keyword"); !anyContains(r, "text", "Rust") {
		t.Errorf("the headings are not found: %v", r)
	}

	_, job := importKB(t, s, "headings-copy", exportKB(t, s, "headings"))
	if job.Status != ragd.JobCompleted {
		t.Fatalf("import: %s %s", job.Status, job.Error)
	}
	copied := documents(t, s, "headings-copy")
	if len(copied) != 2 {
		t.Fatalf("imported %d documents: %+v", len(copied), copied)
	}
	for _, d := range copied {
		if n := s.ChunkCount(t, "headings-copy", d.ID); d.Chunks < 1 || n != d.Chunks {
			t.Errorf("imported %s: %d chunks, %d stored", d.Source, d.Chunks, n)
		}
	}
}

// A document an earlier ragd stored without chunks (a heading-only file)
// is read again at the next sync, though its file is unchanged, and so
// gets its chunk: the namespace's export imports again.
func TestSyncReindexesDocumentWithoutChunks(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	dir := filepath.Join(root, "d")
	path := writeFile(t, filepath.Join(dir, "3-tools.md"), "# Tools\n\n## Go\n")
	s := stack.Start(t, stack.Config(t, root), true)
	syncRun(t, s, dir, nil)
	id := ragd.DocumentID("sync", "file://"+path)
	d, err := s.Library.Registry.Get(t.Context(), "sync", id)
	if err != nil || d == nil {
		t.Fatalf("document %s: %v %v", id, d, err)
	}
	// As an earlier ragd stored it: its headings alone, no chunk.
	d.ContentHash, d.Chunks = ragd.ContentHash([]byte("Tools\n\nGo")), 0
	if err := s.Library.Registry.Put(t.Context(), *d); err != nil {
		t.Fatal(err)
	}
	if plan := dryRun(t, s, dir, nil); len(plan.Changed) != 1 || plan.Unchanged != 0 {
		t.Fatalf("a document without chunks should be read again: %+v", plan)
	}
	if res := syncRun(t, s, dir, nil); res.FilesIndexed != 1 {
		t.Fatalf("sync: %+v", res)
	}
	if d := docByID(t, s, "sync", id); d.Chunks < 1 {
		t.Fatalf("after the sync: %d chunks", d.Chunks)
	}
	if _, job := importKB(t, s, "sync-copy", exportKB(t, s, "sync")); job.Status != ragd.JobCompleted {
		t.Fatalf("import: %s %s", job.Status, job.Error)
	}
}
