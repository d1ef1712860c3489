package api_test

import (
	"encoding/json"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"ragd"
	"ragd/internal/testkit/stack"
	"ragd/internal/testkit/testenv"
)

// goDocs copies the documentation shipped with the Go toolchain into a fresh
// ingest root: real HTML and Markdown written by others.
func goDocs(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	for _, name := range []string{"go_mem.html", "asm.html", "godebug.md", "README.md"} {
		testenv.CopyFile(t, testenv.GorootFile(t, "doc/"+name), filepath.Join(root, "godoc", name))
	}
	return root
}

func writeFile(t *testing.T, path, content string) string {
	t.Helper()
	return testenv.WriteFile(t, path, content)
}

func str(m map[string]any, k string) string {
	s, _ := m[k].(string)
	return s
}

func num(m map[string]any, k string) int {
	f, _ := m[k].(float64)
	return int(f)
}

func decodeJob(t *testing.T, resp stack.Response) ragd.Job {
	t.Helper()
	var job ragd.Job
	if err := json.Unmarshal(resp.Body, &job); err != nil {
		t.Fatalf("decode job: %v: %s", err, resp.Body)
	}
	return job
}

// search runs rag_search and returns the results' sources and texts.
func search(t *testing.T, s *stack.Stack, query, kb string, topK int) []map[string]any {
	t.Helper()
	body := map[string]any{"query": query, "top_k": topK}
	if kb != "" {
		body["kb_name"] = kb
	}
	resp := s.Do(t, http.MethodPost, "/tools/rag_search", body)
	if resp.Status != http.StatusOK {
		t.Fatalf("rag_search: %d %s", resp.Status, resp.Body)
	}
	var out struct {
		Results []map[string]any `json:"results"`
		Count   int              `json:"count"`
	}
	if err := json.Unmarshal(resp.Body, &out); err != nil {
		t.Fatal(err)
	}
	if out.Count != len(out.Results) {
		t.Fatalf("count %d but %d results", out.Count, len(out.Results))
	}
	return out.Results
}

func anyContains(results []map[string]any, field, want string) bool {
	for _, r := range results {
		if strings.Contains(str(r, field), want) {
			return true
		}
	}
	return false
}
