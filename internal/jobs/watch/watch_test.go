package watch_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"ragd/internal/jobs/watch"
	"ragd/internal/platform/config"
	"ragd/internal/platform/keyspace"
	"ragd/internal/testkit/stack"
)

// within polls cond until it holds, failing the test (rather than hanging)
// past a generous bound; it returns how long it took.
func within(t *testing.T, what string, cond func() bool) time.Duration {
	t.Helper()
	start := time.Now()
	for !cond() {
		if time.Since(start) > 30*time.Second {
			t.Fatalf("%s: not seen after %s", what, time.Since(start))
		}
		time.Sleep(100 * time.Millisecond)
	}
	return time.Since(start)
}

func found(t *testing.T, s *stack.Stack, query, text string) bool {
	t.Helper()
	resp := s.Do(t, http.MethodPost, "/tools/rag_search", map[string]any{"query": query, "kb_name": "watched", "top_k": 5, "mode": "keyword"})
	var out struct{ Results []struct{ Text string } }
	if resp.Status != http.StatusOK || json.Unmarshal(resp.Body, &out) != nil {
		t.Fatalf("search: %d %s", resp.Status, resp.Body)
	}
	for _, r := range out.Results {
		if strings.Contains(r.Text, text) {
			return true
		}
	}
	return false
}

func write(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// A watched directory follows its files: created, changed (also in a
// directory created after the watch began) and deleted files are reflected
// in search; a deletion made while no watcher ran is caught up at start.
func TestWatchFollowsTheDirectory(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	dir := filepath.Join(root, "w")
	write(t, filepath.Join(dir, "before.md"), "# Before\n\nThe quarry supplied granite for the bridge.")
	s := stack.Start(t, stack.Config(t, root), true)
	entry := []config.WatchEntry{{Path: dir, KBName: "watched"}}
	ctx, cancel := context.WithCancel(t.Context())
	wait, err := s.Watch(ctx, entry)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("existing file indexed by the start sync after %s", within(t, "start sync", func() bool { return found(t, s, "quarry granite", "quarry") }))

	write(t, filepath.Join(dir, "new.md"), "# New\n\nThe cooper bent oak staves into barrels.")
	t.Logf("created file found after %s", within(t, "created file", func() bool { return found(t, s, "cooper staves barrels", "cooper") }))
	write(t, filepath.Join(dir, "new.md"), "# New\n\nThe tanner cured hides with oak bark.")
	t.Logf("changed file found after %s", within(t, "changed file", func() bool {
		return found(t, s, "tanner hides bark", "tanner") && !found(t, s, "cooper staves barrels", "cooper")
	}))
	write(t, filepath.Join(dir, "sub", "deep.md"), "# Deep\n\nThe chandler dipped tallow candles at dawn.")
	t.Logf("file in a new subdirectory found after %s", within(t, "new subdirectory", func() bool { return found(t, s, "chandler tallow candles", "chandler") }))
	if err := os.Remove(filepath.Join(dir, "new.md")); err != nil {
		t.Fatal(err)
	}
	t.Logf("deleted file gone after %s", within(t, "deleted file", func() bool { return !found(t, s, "tanner hides bark", "tanner") }))

	cancel()
	wait()
	if err := os.Remove(filepath.Join(dir, "before.md")); err != nil { // nobody watches now
		t.Fatal(err)
	}
	wait, err = s.Watch(t.Context(), entry)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(wait)
	t.Logf("deletion made while unwatched caught up after %s", within(t, "catch-up", func() bool { return !found(t, s, "quarry granite", "quarry") }))
	if !found(t, s, "chandler tallow candles", "chandler") {
		t.Fatal("the restart lost an unchanged file")
	}
}

// Two processes configured with the same directory: one watches, and the
// other takes over when the first stops.
func TestOneWatcherPerDirectory(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	s := stack.Start(t, stack.Config(t, root), false)
	var mu sync.Mutex
	holders := map[string]int{}
	logger := func(name string) *slog.Logger {
		return slog.New(handlerFunc(func(msg string) {
			if msg == "watching" {
				mu.Lock()
				holders[name]++
				mu.Unlock()
			}
		}))
	}
	timing := watch.Timing{LeaseTTL: 2 * time.Second}
	e := watch.Entry{Path: root, KBName: "watched", Recursive: true, Prune: true}
	ctxA, stopA := context.WithCancel(t.Context())
	a := watch.New(e, s.Library, s.KV, keyspace.New(s.Config.Redis.KeyPrefix), timing, logger("a"))
	b := watch.New(e, s.Library, s.KV, keyspace.New(s.Config.Redis.KeyPrefix), timing, logger("b"))
	doneA := make(chan struct{})
	go func() { a.Run(ctxA); close(doneA) }()
	within(t, "first watcher", func() bool { mu.Lock(); defer mu.Unlock(); return holders["a"] == 1 })
	go b.Run(t.Context())
	time.Sleep(3 * timing.LeaseTTL) // b tries again and again meanwhile
	mu.Lock()
	if holders["b"] != 0 {
		mu.Unlock()
		t.Fatalf("both watchers hold the lease: %v", holders)
	}
	mu.Unlock()
	stopA()
	<-doneA
	within(t, "takeover", func() bool { mu.Lock(); defer mu.Unlock(); return holders["b"] == 1 })
}
