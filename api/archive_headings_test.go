package api_test

import (
	"net/http"
	"path/filepath"
	"testing"

	"ragd"
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
