package search_test

import (
	"net/http"
	"path/filepath"
	"testing"

	"ragd/internal/testkit/stack"
	"ragd/internal/testkit/testenv"
)

// While Redis cannot answer, a search still answers from Weaviate,
// uncached: the current versions from what the process last knew, the
// cache, generations and vocabulary skipped. It failed with 503 ("redis is
// unavailable") before.
func TestSearchAnswersWithoutRedis(t *testing.T) {
	t.Parallel()
	url, kill := testenv.StartRedis(t)
	root := t.TempDir()
	cfg := stack.Config(t, root)
	cfg.Redis.URL = url
	s := stack.Start(t, cfg, true)
	testenv.WriteFile(t, filepath.Join(root, "a.md"), "# Tide tables\n\nThe harbour tide tables are posted at the pier.")
	testenv.WriteFile(t, filepath.Join(root, "b.md"), "# Ferry\n\nThe ferry leaves the harbour at noon.")
	for _, name := range []string{"a.md", "b.md"} {
		r := s.Do(t, http.MethodPost, "/tools/rag_index", map[string]any{"file_path": filepath.Join(root, name), "kb_name": "sea", "wait": true})
		if r.Status != http.StatusOK {
			t.Fatalf("index %s: %d %s", name, r.Status, r.Body)
		}
	}
	// One search while Redis answers, so the process knows a's version.
	if got := searchSources(t, s, "tide tables"); len(got) == 0 {
		t.Fatal("no result while Redis answers")
	}
	kill()
	for _, q := range []string{"tide tables", "ferry at noon"} {
		for _, mode := range []string{"keyword", "hybrid", "vector"} {
			r := s.Do(t, http.MethodPost, "/tools/rag_search", map[string]any{"query": q, "kb_name": "sea", "mode": mode, "top_k": 3})
			if r.Status != http.StatusOK || r.JSON["count"].(float64) == 0 {
				t.Fatalf("%s search %q with Redis down: %d %.300s", mode, q, r.Status, r.Body)
			}
		}
	}
}

func searchSources(t *testing.T, s *stack.Stack, q string) []any {
	t.Helper()
	r := s.Do(t, http.MethodPost, "/tools/rag_search", map[string]any{"query": q, "kb_name": "sea", "top_k": 3})
	if r.Status != http.StatusOK {
		t.Fatalf("search %q: %d %s", q, r.Status, r.Body)
	}
	list, _ := r.JSON["results"].([]any)
	return list
}
