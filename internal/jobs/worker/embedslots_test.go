package worker

import (
	"context"
	"errors"
	"testing"
	"time"

	"golang.org/x/sync/semaphore"

	"ragd"
	"ragd/internal/testkit/wordvec"
)

// A job's embedding waits for one of the process's slots
// (embed.concurrency), before the guarded call, and frees it after.
func TestEmbeddingWaitsForASlot(t *testing.T) {
	slots := semaphore.NewWeighted(1)
	p := &Pipeline{Embedder: wordvec.New(8), Embeds: slots}
	batch := []ragd.Chunk{{Text: "harbour ledger"}}
	if !slots.TryAcquire(1) {
		t.Fatal("slot taken")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if err := p.embed(ctx, batch); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("embed with every slot taken: %v, want it to wait until its context ends", err)
	}
	slots.Release(1)
	if err := p.embed(context.Background(), batch); err != nil || len(batch[0].Vector) != 8 {
		t.Fatalf("embed with a slot free: %v, vector %v", err, batch[0].Vector)
	}
	if !slots.TryAcquire(1) {
		t.Fatal("the embedding kept its slot")
	}
}
