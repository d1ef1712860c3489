package registry_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"ragd"
	"ragd/internal/catalog/registry"
)

// PutHeldBatch makes every document of the batch current in one move of
// the namespace's epoch; if one of its locks was lost, it writes none.
func TestPutHeldBatchMovesTheEpochOnce(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	batch := make([]registry.Held, 3)
	for i := range batch {
		id := fmt.Sprintf("doc%d", i)
		l, err := f.Lock(ctx, "ns", id, time.Second)
		if err != nil {
			t.Fatal(err)
		}
		defer l.Release()
		batch[i] = registry.Held{Lease: l, Doc: ragd.Document{ID: id, Namespace: "ns", Source: "text://" + id,
			ContentHash: "h" + id, Chunks: 1, UpdatedAt: time.Now()}}
	}
	before, _ := f.Epoch(ctx, "ns")
	if err := f.PutHeldBatch(ctx, "ns", batch); err != nil {
		t.Fatal(err)
	}
	if after, _ := f.Epoch(ctx, "ns"); after != before+1 {
		t.Fatalf("epoch %d after a batch of 3 from %d, want one move", after, before)
	}
	for _, h := range batch {
		if got, err := f.Get(ctx, "ns", h.Doc.ID); err != nil || got.ContentHash != h.Doc.ContentHash {
			t.Fatalf("%s: %+v %v", h.Doc.ID, got, err)
		}
	}
	f.rdb.Del(ctx, f.keys.DocumentLock("ns", "doc1")) // a failover lost one lock
	for i := range batch {
		batch[i].Doc.ContentHash = "new"
	}
	if err := f.PutHeldBatch(ctx, "ns", batch); !errors.Is(err, registry.ErrLockLost) {
		t.Fatalf("a batch with a lost lock: %v", err)
	}
	if got, _ := f.Get(ctx, "ns", "doc0"); got.ContentHash != "hdoc0" {
		t.Fatalf("doc0 switched to %s by a batch with a lost lock", got.ContentHash)
	}
}
