package search_test

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"ragd/internal/stack"
)

// privateRedis starts a redis-server of the test's own on a free port and
// returns its URL and the process, which the test may kill.
func privateRedis(t *testing.T) (string, *exec.Cmd) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	_ = l.Close()
	cmd := exec.Command("redis-server", "--port", fmt.Sprint(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
		"--dir", t.TempDir())
	if err := cmd.Start(); err != nil {
		t.Fatalf("redis-server: %v (make test installs it)", err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	url := fmt.Sprintf("redis://127.0.0.1:%d/0", port)
	opt, _ := redis.ParseURL(url)
	rdb := redis.NewClient(opt)
	defer rdb.Close()
	for deadline := time.Now().Add(10 * time.Second); rdb.Ping(context.Background()).Err() != nil; time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the private redis-server did not answer within 10 s")
		}
	}
	return url, cmd
}

// While Redis cannot answer, a search still answers from Weaviate,
// uncached: the current versions from what the process last knew, the
// cache, generations and vocabulary skipped. It failed with 503 ("redis is
// unavailable") before.
func TestSearchAnswersWithoutRedis(t *testing.T) {
	t.Parallel()
	url, redisProc := privateRedis(t)
	root := t.TempDir()
	cfg := stack.Config(t, root)
	cfg.Redis.URL = url
	s := stack.Start(t, cfg, true)
	writeFile(t, filepath.Join(root, "a.md"), "# Tide tables\n\nThe harbour tide tables are posted at the pier.")
	writeFile(t, filepath.Join(root, "b.md"), "# Ferry\n\nThe ferry leaves the harbour at noon.")
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
	_ = redisProc.Process.Kill()
	_ = redisProc.Wait()
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

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}
