package worker_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"ragd"
	"ragd/internal/jobs/worker"
)

// recordingWriter is a chunk writer that records each Upsert and fails
// any batch holding a chunk of document "bad" (as Weaviate refuses an
// object), or every batch with down set.
type recordingWriter struct {
	ragd.ChunkWriter
	mu    sync.Mutex
	calls [][]string // chunk ids per call
	down  bool
}

func (w *recordingWriter) Upsert(_ context.Context, ns string, chunks []ragd.Chunk) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	ids := make([]string, len(chunks))
	for i, c := range chunks {
		ids[i] = c.ID
	}
	w.calls = append(w.calls, ids)
	if w.down {
		return ragd.Unavailable("weaviate", errors.New("connection refused"))
	}
	for _, c := range chunks {
		if c.DocumentID == "bad" {
			return fmt.Errorf("weaviate batch write: 1 of %d objects failed", len(chunks))
		}
	}
	return nil
}

func chunksOf(doc string, n int) []ragd.Chunk {
	out := make([]ragd.Chunk, n)
	for i := range out {
		out[i] = ragd.Chunk{ID: fmt.Sprintf("%s-%d", doc, i), DocumentID: doc}
	}
	return out
}

// upsertAll writes each document's chunks from its own goroutine, as
// concurrent jobs do, and returns each one's error.
func upsertAll(w *worker.BatchWriter, ctxs []context.Context, docs []string, n int) []error {
	errs := make([]error, len(docs))
	var wg sync.WaitGroup
	for i, d := range docs {
		wg.Go(func() { errs[i] = w.Upsert(ctxs[i%len(ctxs)], "ns", chunksOf(d, n)) })
	}
	wg.Wait()
	return errs
}

// Concurrent jobs' writes share batches of up to Size chunks; a batch
// the store refuses is written again job by job, so only the job whose
// chunks it refuses fails; an unavailable store fails every job at once.
func TestBatchWriterSharesBatches(t *testing.T) {
	ctx := context.Background()
	store := &recordingWriter{}
	w := &worker.BatchWriter{ChunkWriter: store, Size: 60, Wait: time.Second}
	docs := []string{"a", "b", "c", "d", "e", "f", "g", "h"}
	start := time.Now()
	for _, err := range upsertAll(w, []context.Context{ctx}, docs, 15) {
		if err != nil {
			t.Fatal(err)
		}
	}
	if took := time.Since(start); took > 900*time.Millisecond {
		t.Errorf("full batches waited %s: a batch of Size chunks goes at once", took)
	}
	var written []string
	for _, call := range store.calls {
		if len(call) > 60 {
			t.Errorf("a batch of %d chunks, over Size", len(call))
		}
		written = append(written, call...)
	}
	slices.Sort(written)
	if len(store.calls) != 2 || len(written) != 120 || len(slices.Compact(written)) != 120 {
		t.Fatalf("%d calls writing %d chunks (%d distinct), want 120 in 2 batches", len(store.calls), len(written), len(slices.Compact(written)))
	}

	store.calls = nil
	w.Wait = 20 * time.Millisecond // the last, partial batch goes after Wait
	errs := upsertAll(w, []context.Context{ctx}, []string{"a", "bad", "c"}, 5)
	for i, err := range errs {
		if (err != nil) != (i == 1) {
			t.Errorf("writer %d: %v (only the refused document fails)", i, err)
		}
	}

	store.calls, store.down = nil, true
	for _, err := range upsertAll(w, []context.Context{ctx}, []string{"a", "b", "c"}, 5) {
		if ragd.KindOf(err) != ragd.KindUnavailable {
			t.Errorf("with the store down: %v", err)
		}
	}
	if len(store.calls) != 1 {
		t.Errorf("with the store down, %d calls: a shared batch is not retried writer by writer", len(store.calls))
	}
}

type targetKey struct{}

// Writes bound for different targets (a switch's snapshots) never share a
// batch.
func TestBatchWriterKeepsTargetsApart(t *testing.T) {
	store := &recordingWriter{}
	w := &worker.BatchWriter{ChunkWriter: store, Size: 100, Wait: 20 * time.Millisecond,
		Target: func(ctx context.Context) any { return ctx.Value(targetKey{}) }}
	one := context.WithValue(context.Background(), targetKey{}, "one")
	two := context.WithValue(context.Background(), targetKey{}, "two")
	for _, err := range upsertAll(w, []context.Context{one, two}, []string{"a", "b", "c", "d"}, 5) {
		if err != nil {
			t.Fatal(err)
		}
	}
	for _, call := range store.calls {
		firsts := map[byte]bool{}
		for _, id := range call {
			firsts[id[0]] = true
		}
		if (firsts['a'] || firsts['c']) && (firsts['b'] || firsts['d']) {
			t.Fatalf("a batch mixed targets: %v", call)
		}
	}
	if len(store.calls) != 2 {
		t.Errorf("%d calls, want one per target", len(store.calls))
	}
}

// A batch that every running job waits in goes at once: no other job
// could join it. A job that has not written yet keeps it open for Wait.
func TestBatchWriterSendsWhenEveryJobWaits(t *testing.T) {
	store := &recordingWriter{}
	w := &worker.BatchWriter{ChunkWriter: store, Size: 1000, Wait: time.Minute}
	leaves := []func(){w.Enter(), w.Enter(), w.Enter()}
	start := time.Now()
	for _, err := range upsertAll(w, []context.Context{context.Background()}, []string{"a", "b", "c"}, 5) {
		if err != nil {
			t.Fatal(err)
		}
	}
	if took := time.Since(start); took > 10*time.Second || len(store.calls) != 1 {
		t.Fatalf("three running jobs' writes: %d calls after %s, want one at once", len(store.calls), took)
	}
	leaves[0]()
	leaves[0]() // twice is once
	w.Wait = 50 * time.Millisecond
	store.calls = nil
	start = time.Now()
	if err := w.Upsert(context.Background(), "ns", chunksOf("d", 5)); err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took < 40*time.Millisecond {
		t.Errorf("a write with another job still running went after %s, before Wait", took)
	}
	leaves[1]()
	leaves[2]()
}
