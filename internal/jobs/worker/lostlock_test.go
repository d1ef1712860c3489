package worker_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"ragd"
	"ragd/internal/catalog/registry"
	"ragd/internal/jobs"
	"ragd/internal/testkit/stack"
)

// takeoverEmbedder runs takeover once, before the third batch it embeds:
// a run that has written some of its chunks and not yet committed.
type takeoverEmbedder struct {
	ragd.Embedder
	calls    atomic.Int32
	takeover func()
}

func (e *takeoverEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	if e.calls.Add(1) == 3 {
		e.takeover()
	}
	return e.Embedder.Embed(ctx, texts)
}

// A run that loses the document's lock mid-write (a Redis failover drops
// the lock key, or it expires while Redis is unreachable) while a second
// run of the same document — the task retried, the file changed since —
// takes the lock and commits: the first run must not switch the registry
// back to its version, whose early chunks the second run's cleanup already
// deleted. Before leases were checked at commit, it did: the document was
// listed at the older content, with chunks the store no longer held.
func TestRunThatLostItsLockDoesNotCommit(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	cfg := stack.Config(t)
	cfg.Embed.BatchSize = 4 // several batches, so some are written before the takeover's cleanup
	s := stack.Start(t, cfg, false)
	var old strings.Builder
	for i := 0; i < 400; i++ {
		fmt.Fprintf(&old, "Entry %d of the first version's lighthouse log records the tide, the wind and the lamp at dawn.\n\n", i)
	}
	first := jobs.DocumentPayload{Namespace: "lost", DocumentID: "doc", Source: "text://doc", Text: old.String()}
	second := first
	second.Text = "The second version: the lighthouse was automated and its keeper retired."

	var secondRes ragd.DocumentResult
	var secondErr error
	p := *s.Pipeline
	p.Embedder = &takeoverEmbedder{Embedder: s.Pipeline.Embedder, takeover: func() {
		// The failover: the first run's lock is gone, a retry takes it.
		keys, err := s.Redis.Keys(ctx, cfg.Redis.KeyPrefix+"*lock*").Result()
		if err != nil || len(keys) != 1 {
			t.Errorf("lock keys %v, %v; want the first run's one", keys, err)
		}
		s.Redis.Del(ctx, keys...)
		secondRes, secondErr = s.Pipeline.IndexDocument(ctx, second, &jobs.Reporter{})
	}}
	_, err := p.IndexDocument(ctx, first, &jobs.Reporter{})
	if secondRes.ContentHash == "" && secondErr == nil {
		t.Fatal("the first run embedded fewer than 3 batches: no takeover happened")
	}
	if secondErr != nil {
		t.Fatalf("second run: %v", secondErr)
	}
	if !errors.Is(err, registry.ErrLockLost) {
		t.Fatalf("first run: %v; want ErrLockLost", err)
	}
	doc, err := s.Library.Registry.Get(ctx, "lost", "doc")
	if err != nil {
		t.Fatal(err)
	}
	if doc.ContentHash != secondRes.ContentHash {
		t.Fatalf("registry holds version %.12s, want the second run's %.12s", doc.ContentHash, secondRes.ContentHash)
	}
	if n := s.ChunkCount(t, "lost", "doc"); n < doc.Chunks {
		t.Fatalf("the store holds %d chunks of the document, the registry lists %d", n, doc.Chunks)
	}
	// The first run's leftovers go with the next run of the job.
	if _, err := s.Pipeline.IndexDocument(ctx, second, &jobs.Reporter{}); err != nil {
		t.Fatal(err)
	}
	if n := s.ChunkCount(t, "lost", "doc"); n != doc.Chunks {
		t.Fatalf("after the retry the store holds %d chunks, want the current version's %d", n, doc.Chunks)
	}
}
