package ingest

import (
	"context"
	"errors"
	"testing"
	"time"

	"golang.org/x/sync/semaphore"
)

// A read waits for a parse slot (ingest.parse_concurrency), as long as its
// job may wait, and runs once one is free.
func TestReadsWaitForAParseSlot(t *testing.T) {
	slots := semaphore.NewWeighted(1)
	r := &Reader{MaxFileBytes: 1 << 20, Parses: slots}
	if !slots.TryAcquire(1) {
		t.Fatal("slot taken")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if _, err := r.Read(ctx, Source{Text: "the harbour ledger", Title: "t"}); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("read with every slot taken: %v, want it to wait until its context ends", err)
	}
	slots.Release(1)
	c, err := r.Read(context.Background(), Source{Text: "the harbour ledger", Title: "t"})
	if err != nil || c.Doc == nil {
		t.Fatalf("read with a slot free: %v", err)
	}
	if !slots.TryAcquire(1) {
		t.Fatal("the read kept its slot")
	}
}
