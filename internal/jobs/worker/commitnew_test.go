package worker_test

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"ragd/internal/catalog/versions"
	"ragd/internal/testkit/stack"
)

// staleCounter counts the store's DeleteStale calls (the probe for other
// versions a commit makes).
type staleCounter struct {
	versions.Store
	n atomic.Int64
}

func (c *staleCounter) DeleteStale(ctx context.Context, ns, id, keep string) (int, error) {
	c.n.Add(1)
	return c.Store.DeleteStale(ctx, ns, id, keep)
}

// The first run of a job writing a document the namespace does not hold
// looks for no other version (versions.Keeper.CommitNew); a new version of
// a held document does, and its old chunks go.
func TestNewDocumentsCommitWithoutTheStaleProbe(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	s := stack.Start(t, stack.Config(t, root), true)
	counter := &staleCounter{Store: s.Library.Versions.Store}
	s.Library.Versions.Store = counter
	for _, name := range []string{"a.md", "b.md", "c.md"} {
		text := "# " + name + "\n\nThe harbour ledger lists every ship by flag and tonnage, " + name + ".\n"
		if err := os.WriteFile(filepath.Join(root, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	r := s.Do(t, http.MethodPost, "/tools/rag_index_directory", map[string]any{"directory_path": root, "wait": true})
	if r.Status != http.StatusOK {
		t.Fatalf("index: %d %s", r.Status, r.Body)
	}
	if n := counter.n.Load(); n != 0 {
		t.Fatalf("%d stale probes for three new documents' first runs, want none", n)
	}
	if err := os.WriteFile(filepath.Join(root, "a.md"), []byte("# a.md\n\nA new edition: the ledger moved to the customs house.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r = s.Do(t, http.MethodPost, "/tools/rag_index", map[string]any{"file_path": filepath.Join(root, "a.md"), "wait": true})
	if r.Status != http.StatusOK || r.JSON["status"] != "success" {
		t.Fatalf("re-index: %d %s", r.Status, r.Body)
	}
	if n := counter.n.Load(); n != 1 {
		t.Fatalf("%d stale probes for a new version of a held document, want 1", n)
	}
	deadline := time.Now().Add(10 * time.Second)
	for s.ChunkCount(t, "default", str(r.JSON, "document_id")) != 1 && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	if n := s.ChunkCount(t, "default", str(r.JSON, "document_id")); n != 1 {
		t.Fatalf("the re-indexed document holds %d chunks, want its new version's 1", n)
	}
}

func str(m map[string]any, k string) string {
	s, _ := m[k].(string)
	return s
}
