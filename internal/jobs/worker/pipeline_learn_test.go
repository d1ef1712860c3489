package worker_test

import (
	"context"
	"testing"

	"ragd"
	vocabpkg "ragd/internal/catalog/vocab"
	"ragd/internal/jobs"
	"ragd/internal/testkit/stack"
)

// indexText indexes text as document "doc" of namespace ns through the
// stack's pipeline, returning the payload and the result.
func indexText(t *testing.T, s *stack.Stack, ns, text string) (jobs.DocumentPayload, ragd.DocumentResult) {
	t.Helper()
	pl := jobs.DocumentPayload{Namespace: ns, DocumentID: "doc", Source: "text://doc", Text: text}
	res, err := s.Pipeline.IndexDocument(context.Background(), pl, &jobs.Reporter{})
	if err != nil {
		t.Fatal(err)
	}
	return pl, res
}

// A run that made a version current but died before learning its
// vocabulary leaves a retry that finds the version a duplicate: the retry
// learns the words then, and moves the generation so searches reload them.
func TestDuplicateRetryLearnsMissingVocabulary(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := stack.Start(t, stack.Config(t), false)
	pl, res := indexText(t, s, "learn", "Serialization keeps the wire format stable.")
	vocab := s.Library.Versions.Vocab
	if h, err := vocab.Learned(ctx, "learn", "doc"); err != nil || h != res.ContentHash {
		t.Fatalf("after indexing: learned %q, %v; want %q", h, err, res.ContentHash)
	}

	counted := func(ctx context.Context, hash string) (vocabpkg.Counts, error) {
		return s.Library.Versions.Words(ctx, "learn", "doc", hash)
	}
	if err := vocab.Forget(ctx, "learn", "doc", counted); err != nil { // as if the run died before Learn
		t.Fatal(err)
	}
	gen, err := s.Library.Versions.Generations.Get(ctx, "learn")
	if err != nil {
		t.Fatal(err)
	}
	again, err := s.Pipeline.IndexDocument(ctx, pl, &jobs.Reporter{})
	if err != nil || !again.DedupHit {
		t.Fatalf("retry: %+v, %v; want a dedup hit", again, err)
	}
	if h, _ := vocab.Learned(ctx, "learn", "doc"); h != res.ContentHash {
		t.Fatalf("after the retry: learned %q, want %q", h, res.ContentHash)
	}
	if now, _ := s.Library.Versions.Generations.Get(ctx, "learn"); now <= gen {
		t.Fatalf("generation %d after relearning, want past %d", now, gen)
	}
	stats, err := vocab.Load(ctx, "learn", s.Library.Registry.CurrentHashes)
	if err != nil || !stats.Has("serialization") {
		t.Fatalf("namespace vocabulary lacks the document's words: %v", err)
	}

	// A retry that finds the words learned changes nothing.
	gen, _ = s.Library.Versions.Generations.Get(ctx, "learn")
	if _, err := s.Pipeline.IndexDocument(ctx, pl, &jobs.Reporter{}); err != nil {
		t.Fatal(err)
	}
	if now, _ := s.Library.Versions.Generations.Get(ctx, "learn"); now != gen {
		t.Fatalf("an unchanged re-index moved the generation %d → %d", gen, now)
	}
}
