package versions_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"testing"
	"time"

	"ragd"
	"ragd/internal/catalog/registry"
	"ragd/internal/catalog/versions"
	"ragd/internal/platform/keyspace"
	"ragd/internal/testkit/stack"
)

// version writes version hash of document id in ns: n chunks, not yet
// current.
func version(t *testing.T, s *stack.Stack, ns, id, hash string, n int) ragd.Document {
	t.Helper()
	dim := s.Search.Embedder.Dimension()
	chunks := make([]ragd.Chunk, n)
	for i := range chunks {
		v := make([]float32, dim)
		v[i%dim] = 1
		chunks[i] = ragd.Chunk{ID: ragd.ChunkID(id, hash, i), DocumentID: id, Namespace: ns, Source: "text://" + id,
			SourceType: ragd.SourceText, ContentHash: hash, Index: i, Text: fmt.Sprintf("chunk %d of %s", i, hash),
			Timestamp: time.Now().UTC(), Vector: v}
	}
	if err := s.Chunks.Upsert(context.Background(), ns, chunks); err != nil {
		t.Fatal(err)
	}
	now := time.Now().UTC()
	return ragd.Document{ID: id, Namespace: ns, Source: "text://" + id, SourceType: ragd.SourceText, ContentHash: hash,
		Title: id, Chunks: n, CreatedAt: now, UpdatedAt: now}
}

// A commit switches the registry to the new version, deletes the old
// version's chunks and invalidates the namespace's cached results; a
// writer that has lost the lock switches nothing and deletes nothing.
func TestCommitSwitchesUnderTheLock(t *testing.T) {
	t.Parallel()
	s := stack.StartService(t, stack.ServiceConfig(t), false)
	k, ctx := s.Library.Versions, context.Background()
	const ns, id = "shelf", "doc-1"

	lease, err := k.Lock(ctx, ns, id)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := k.Commit(ctx, lease, version(t, s, ns, id, "v1", 3), versions.Words{}); err != nil {
		t.Fatal(err)
	}
	lease.Release()
	gen, _ := k.Generations.Get(ctx, ns)

	lease, err = k.Lock(ctx, ns, id)
	if err != nil {
		t.Fatal(err)
	}
	n, err := k.Commit(ctx, lease, version(t, s, ns, id, "v2", 2), versions.Words{})
	lease.Release()
	if err != nil || n != 3 {
		t.Fatalf("second commit: %d stale chunks deleted, %v; want 3", n, err)
	}
	if d, err := k.Registry.Get(ctx, ns, id); err != nil || d.ContentHash != "v2" {
		t.Fatalf("current version: %+v %v", d, err)
	}
	if total, v1 := s.ChunkCount(t, ns, id), countVersion(t, s, ns, id, "v1"); total != 2 || v1 != 0 {
		t.Fatalf("after the switch: %d chunks, %d of v1", total, v1)
	}
	if now, _ := k.Generations.Get(ctx, ns); now <= gen {
		t.Fatalf("cache generation %d → %d: not invalidated", gen, now)
	}

	// A lease lost (here released; a failover does the same) switches
	// nothing, and its version's chunks stay uncommitted for Discard.
	lease, err = k.Lock(ctx, ns, id)
	if err != nil {
		t.Fatal(err)
	}
	lost := version(t, s, ns, id, "v3", 1)
	lease.Release()
	if _, err := k.Commit(ctx, lease, lost, versions.Words{}); !errors.Is(err, registry.ErrLockLost) {
		t.Fatalf("commit without the lock: %v, want ErrLockLost", err)
	}
	if d, _ := k.Registry.Get(ctx, ns, id); d.ContentHash != "v2" || countVersion(t, s, ns, id, "v2") != 2 {
		t.Fatalf("a lost lease changed the current version: %+v", d)
	}
	if n, err := k.Discard(ctx, ns, id, ""); err != nil || n != 1 || countVersion(t, s, ns, id, "v3") != 0 {
		t.Fatalf("discard of the uncommitted version: %d, %v", n, err)
	}
}

func countVersion(t *testing.T, s *stack.Stack, ns, id, hash string) int {
	t.Helper()
	n, err := s.Chunks.CountVersion(context.Background(), ns, id, hash)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// Clearing a namespace forgets its words too: query expansion would
// otherwise go on adding the cleared documents' words to queries.
func TestClearForgetsTheVocabulary(t *testing.T) {
	t.Parallel()
	s := stack.StartService(t, stack.ServiceConfig(t), false)
	k, ctx := s.Library.Versions, context.Background()
	lease, err := k.Lock(ctx, "atlas", "doc-1")
	if err != nil {
		t.Fatal(err)
	}
	_, err = k.Commit(ctx, lease, version(t, s, "atlas", "doc-1", "v1", 2), versions.Words{Texts: []string{"fjords glaciers", "glaciers moraines"}})
	lease.Release()
	if err != nil {
		t.Fatal(err)
	}
	if learned, err := k.Vocab.Learned(ctx, "atlas", "doc-1"); err != nil || learned != "v1" {
		t.Fatalf("learned %q, %v", learned, err)
	}
	if err := k.Clear(ctx, "atlas"); err != nil {
		t.Fatal(err)
	}
	if learned, err := k.Vocab.Learned(ctx, "atlas", "doc-1"); err != nil || learned != "" {
		t.Fatalf("after the clear the namespace's words remain: learned %q, %v", learned, err)
	}
}

// Remove takes the document's chunks, its registry entry and its words,
// and invalidates the namespace's cached results; the other documents of
// the namespace stay. A document that never became current is cleared by
// Discard whole; one whose version is current keeps it.
func TestRemoveAndDiscard(t *testing.T) {
	t.Parallel()
	s := stack.StartService(t, stack.ServiceConfig(t), false)
	k, ctx := s.Library.Versions, context.Background()
	const ns = "dock"
	for _, id := range []string{"gone", "kept"} {
		lease, err := k.Lock(ctx, ns, id)
		if err != nil {
			t.Fatal(err)
		}
		_, err = k.Commit(ctx, lease, version(t, s, ns, id, "v1", 2), versions.Words{Texts: []string{"harbour cranes " + id}})
		lease.Release()
		if err != nil {
			t.Fatal(err)
		}
	}
	gen, _ := k.Generations.Get(ctx, ns)
	if n, err := k.Remove(ctx, ns, "gone"); err != nil || n != 2 {
		t.Fatalf("remove: %d chunks, %v; want 2", n, err)
	}
	if _, err := k.Registry.Get(ctx, ns, "gone"); ragd.KindOf(err) != ragd.KindNotFound {
		t.Fatalf("the removed document is still registered: %v", err)
	}
	if learned, _ := k.Vocab.Learned(ctx, ns, "gone"); learned != "" || s.ChunkCount(t, ns, "gone") != 0 {
		t.Fatalf("removed document: words of %q, %d chunks", learned, s.ChunkCount(t, ns, "gone"))
	}
	if now, _ := k.Generations.Get(ctx, ns); now <= gen {
		t.Fatalf("cache generation %d → %d: not invalidated", gen, now)
	}
	if d, err := k.Registry.Get(ctx, ns, "kept"); err != nil || d.ContentHash != "v1" || s.ChunkCount(t, ns, "kept") != 2 {
		t.Fatalf("the other document: %+v %v, %d chunks", d, err, s.ChunkCount(t, ns, "kept"))
	}

	version(t, s, ns, "never", "v1", 3) // written, never committed
	if n, err := k.Discard(ctx, ns, "never", ""); err != nil || n != 3 || s.ChunkCount(t, ns, "never") != 0 {
		t.Fatalf("discard of a never-committed document: %d, %v", n, err)
	}
	if n, err := k.Discard(ctx, ns, "kept", "v1"); err != nil || n != 0 || s.ChunkCount(t, ns, "kept") != 2 {
		t.Fatalf("discard after its own version became current: %d, %v", n, err)
	}
}

// The namespace's vocabulary follows the current versions while Redis
// keeps, per document, only which version it counts: a new version's
// words replace the old one's (recounted from the old chunks before they
// go), a removed document's words go, and an import's version whose
// archive carried no vocabulary is counted from its chunks.
func TestVocabularyFollowsVersions(t *testing.T) {
	t.Parallel()
	s := stack.StartService(t, stack.ServiceConfig(t), false)
	k, ctx := s.Library.Versions, context.Background()
	const ns = "words"
	commit := func(id, hash string, n int, words versions.Words) {
		t.Helper()
		lease, err := k.Lock(ctx, ns, id)
		if err != nil {
			t.Fatal(err)
		}
		defer lease.Release()
		if _, err := k.Commit(ctx, lease, version(t, s, ns, id, hash, n), words); err != nil {
			t.Fatal(err)
		}
	}
	stats := func() map[string]int { return s.Vocabulary(t, ns) }
	// version() writes chunks "chunk <i> of <hash>"; an ingest counts the
	// same texts.
	texts := func(hash string, n int) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = fmt.Sprintf("chunk %d of %s", i, hash)
		}
		return out
	}
	commit("a", "alpha", 2, versions.Words{Texts: texts("alpha", 2)})
	commit("b", "bravo", 1, versions.Words{}) // counted from its chunks
	want := map[string]int{" chunks": 3, "chunk": 3, "of": 3, "0": 2, "1": 1, "alpha": 2, "bravo": 1}
	if got := stats(); !reflect.DeepEqual(got, want) {
		t.Fatalf("after two documents: %v, want %v", got, want)
	}
	commit("a", "charlie", 1, versions.Words{Texts: texts("charlie", 1)})
	want = map[string]int{" chunks": 2, "chunk": 2, "of": 2, "0": 2, "bravo": 1, "charlie": 1}
	if got := stats(); !reflect.DeepEqual(got, want) {
		t.Fatalf("after a's new version: %v, want %v (alpha's words recounted and dropped)", got, want)
	}
	if rec, err := s.Redis.HGet(ctx, keyspace.New(s.Config.Redis.KeyPrefix).Vocabulary(ns), "a").Result(); err != nil || rec != "charlie" {
		t.Fatalf("a's record: %q, %v; want its version alone", rec, err)
	}
	if _, err := k.Remove(ctx, ns, "a"); err != nil {
		t.Fatal(err)
	}
	want = map[string]int{" chunks": 1, "chunk": 1, "of": 1, "0": 1, "bravo": 1}
	if got := stats(); !reflect.DeepEqual(got, want) {
		t.Fatalf("after removing a: %v, want %v", got, want)
	}
}

// The embedder switch deletes from the collection it builds through
// DeleteStaleIn and DeleteDocumentIn: a writer whose lease is lost
// deletes nothing there either.
func TestDeletesInAnotherStoreNeedTheLock(t *testing.T) {
	t.Parallel()
	s := stack.StartService(t, stack.ServiceConfig(t), false)
	k, ctx := s.Library.Versions, context.Background()
	const ns, id = "shelf", "doc-2"
	version(t, s, ns, id, "v1", 2)
	lease, err := k.Lock(ctx, ns, id)
	if err != nil {
		t.Fatal(err)
	}
	lease.Release()
	if _, err := versions.DeleteStaleIn(ctx, s.Chunks, lease, ns, id, "v2"); !errors.Is(err, registry.ErrLockLost) {
		t.Fatalf("stale delete without the lock: %v, want ErrLockLost", err)
	}
	if _, err := versions.DeleteDocumentIn(ctx, s.Chunks, lease, ns, id); !errors.Is(err, registry.ErrLockLost) {
		t.Fatalf("document delete without the lock: %v, want ErrLockLost", err)
	}
	if n := countVersion(t, s, ns, id, "v1"); n != 2 {
		t.Fatalf("%d chunks left of 2 after deletes without the lock", n)
	}
	if lease, err = k.Lock(ctx, ns, id); err != nil {
		t.Fatal(err)
	}
	defer lease.Release()
	if n, err := versions.DeleteStaleIn(ctx, s.Chunks, lease, ns, id, "v2"); err != nil || n != 2 {
		t.Fatalf("stale delete under the lock: %d, %v; want 2", n, err)
	}
}
