package worker_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"ragd"
	"ragd/internal/testkit/stack"
)

// A job that fails for good after writing some of a new version's chunks
// leaves none of them behind: the handler discards them.
func TestFailedJobLeavesNoChunks(t *testing.T) {
	t.Parallel()
	fake := &fakeEmbeddings{dim: 16, failFrom: 3} // two batches written, the third refused
	cfg, doc := fakeEmbedderConfig(t, fake)
	cfg.Worker.MaxRetries = 0
	cfg.Resilience.MaxRetries = 0
	s := stack.Start(t, cfg, true)

	resp := s.Do(t, http.MethodPost, "/tools/rag_index", map[string]any{"file_path": doc, "wait": true})
	if resp.Status != http.StatusUnprocessableEntity || !strings.Contains(string(resp.Body), "input rejected") {
		t.Fatalf("rag_index: %d %s; want the failed job's error", resp.Status, resp.Body)
	}
	if fake.requests.Load() < 3 {
		t.Fatalf("%d embedding requests: the job failed before writing any chunks", fake.requests.Load())
	}
	if n := s.ChunkCount(t, "default", ""); n != 0 {
		t.Fatalf("%d chunks of the failed version left in Weaviate", n)
	}
}

// DiscardUncommitted keeps the current version and removes every other.
func TestDiscardUncommittedKeepsCurrentVersion(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := stack.Start(t, stack.Config(t), false)
	_, res := indexText(t, s, "keep", "Lighthouse keepers trimmed the wicks.")
	orphan := ragd.Chunk{ID: ragd.ChunkID("doc", "other", 0), DocumentID: "doc", Namespace: "keep",
		Source: "text://doc", ContentHash: "other", Text: "a version that never became current"}
	if err := s.Chunks.Upsert(ctx, "keep", []ragd.Chunk{orphan}); err != nil {
		t.Fatal(err)
	}
	n, err := s.Pipeline.DiscardUncommitted(ctx, "keep", "doc")
	if err != nil || n != 1 {
		t.Fatalf("discarded %d, %v; want 1", n, err)
	}
	if got := s.ChunkCount(t, "keep", "doc"); got != res.ChunksIndexed {
		t.Fatalf("%d chunks left, want the current version's %d", got, res.ChunksIndexed)
	}
}
