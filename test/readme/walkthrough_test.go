// Package readme_test runs the README's walk-through against a real stack
// and checks that what it shows matches what ragd answers.
package readme_test

import (
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"ragd/internal/testkit/stack"
)

// repoRoot is the checkout holding this test.
func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// The walk-through: the README indexed into docs, polled, searched and
// asked about, as the README shows it — one namespace throughout, every
// field it shows present, the search and the answer about `make test`.
func TestReadmeWalkThrough(t *testing.T) {
	root := repoRoot(t)
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, kb := range regexp.MustCompile(`"kb_name": ?"([^"]+)"`).FindAllStringSubmatch(string(readme), -1) {
		if kb[1] != "docs" {
			t.Errorf("the walk-through uses namespace %q besides docs", kb[1])
		}
	}
	s := stack.Start(t, stack.Config(t, root), true)
	r := s.Do(t, http.MethodPost, "/tools/rag_index", map[string]any{"file_path": "README.md", "kb_name": "docs"})
	for _, k := range []string{"job_id", "status", "document_id", "dedup_hit"} {
		if _, ok := r.JSON[k]; !ok || r.Status != http.StatusAccepted {
			t.Fatalf("rag_index: %d %s lacks %s", r.Status, r.Body, k)
		}
	}
	job := s.WaitJob(t, r.JSON["job_id"].(string), 2*time.Minute)
	if job.Status != "completed" || job.Progress.Unit != "chunks" || job.Progress.Done != job.Progress.Total {
		t.Fatalf("the job: %+v", job)
	}
	r = s.Do(t, http.MethodPost, "/tools/rag_search", map[string]any{"query": "how do I run the tests", "top_k": 3, "kb_name": "docs"})
	results, _ := r.JSON["results"].([]any)
	if r.Status != http.StatusOK || len(results) != 3 {
		t.Fatalf("rag_search: %d %s", r.Status, r.Body)
	}
	first, _ := results[0].(map[string]any)
	for _, k := range []string{"id", "text", "source", "timestamp", "score"} {
		if _, ok := first[k]; !ok {
			t.Errorf("a search result lacks %s: %v", k, first)
		}
	}
	if !strings.HasSuffix(first["source"].(string), "/README.md") || !strings.Contains(first["text"].(string), "make test") {
		t.Errorf("the first result is not the README's make test: %v", first)
	}
	r = s.Do(t, http.MethodPost, "/tools/rag_query", map[string]any{"query": "how do I run the tests?", "kb_name": "docs"})
	answer, _ := r.JSON["answer"].(string)
	if r.Status != http.StatusOK || r.JSON["route"] != "extractive" || !strings.Contains(answer, "make test") || !regexp.MustCompile(`\[\d\]`).MatchString(answer) {
		t.Errorf("rag_query: %d answer %q route %v", r.Status, answer, r.JSON["route"])
	}
}
