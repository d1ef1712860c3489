package api_test

import (
	"net/http"
	"path/filepath"
	"testing"
	"time"

	"ragd/internal/testkit/stack"
)

// A README without an extension is indexed as text, by path and in a
// directory, instead of being skipped without a word.
func TestPlainNamesAreText(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	writeFile(t, filepath.Join(root, "README"), "Harbour tools\n\nRun the tide tool with make tides.")
	writeFile(t, filepath.Join(root, "Makefile"), "tides:\n\techo tides")
	s := stack.Start(t, stack.Config(t, root), true)
	r := s.Do(t, http.MethodPost, "/tools/rag_index", map[string]any{"file_path": filepath.Join(root, "README"), "kb_name": "plain", "wait": true})
	if r.Status != http.StatusOK || r.JSON["source_type"] != nil && r.JSON["source_type"] != "txt" {
		t.Fatalf("index README: %d %s", r.Status, r.Body)
	}
	r = s.Do(t, http.MethodPost, "/tools/rag_index_directory", map[string]any{"directory_path": root, "kb_name": "plaindir", "wait": true})
	if r.Status != http.StatusOK {
		t.Fatalf("index the directory: %d %s", r.Status, r.Body)
	}
	job := s.WaitJob(t, r.JSON["job_id"].(string), 2*time.Minute)
	if len(job.Children) != 1 || filepath.Base(job.Children[0].FilePath) != "README" {
		t.Fatalf("the directory's files: %+v", job.Children)
	}
}
