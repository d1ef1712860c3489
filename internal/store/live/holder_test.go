package live_test

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"

	"ragd"
	"ragd/internal/platform/keyspace"
	"ragd/internal/platform/kv"
	"ragd/internal/store/live"
	"ragd/internal/testkit/memstore"
	"ragd/internal/testkit/testenv"
	"ragd/internal/testkit/wordvec"
)

func newHolder(t *testing.T) (*live.Holder, *live.Records) {
	t.Helper()
	rdb := testenv.RedisClient(t, testenv.RedisOrMemory(t))
	records := live.NewRecords(kv.New(rdb), keyspace.New("test:"+testenv.Unique(t, "L")), "Coll")
	build := func(_ context.Context, tg live.Target) (*live.Side, error) {
		return &live.Side{Target: tg, Embedder: wordvec.New(8), Store: memstore.New(), BatchSize: 4}, nil
	}
	h, err := live.NewHolder(context.Background(), records, build, time.Hour, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(h.Close)
	return h, records
}

// A pin holds the snapshot current at its first use for as long as it
// lasts; the process acknowledges a newer state only once no pin of an
// older one is left, and a pin never used holds nothing back.
func TestPinsHoldBackTheAcknowledgement(t *testing.T) {
	h, records := newHolder(t)
	ctx := context.Background()
	idle, releaseIdle := h.Pin(ctx)
	used, releaseUsed := h.Pin(ctx)
	if ragd.VectorSpace(used) != "Coll" { // first use: pinned to gen 0
		t.Fatalf("vector space %q", ragd.VectorSpace(used))
	}
	st, err := records.Update(ctx, true, func(s *live.State) error {
		s.Switch = &live.Switch{JobID: "j", From: s.Live, To: live.Target{Name: "alt", Collection: "Coll_1"}, Phase: live.PhaseCopying}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := h.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	if behind, _ := records.Behind(ctx, st.Gen, time.Minute); len(behind) != 1 {
		t.Fatalf("with a pin of the older state in flight: behind %v, want this process", behind)
	}
	if h.Current().To == nil || h.Current().To.Target.Collection != "Coll_1" {
		t.Fatalf("current snapshot does not write to the new collection: %+v", h.Current())
	}
	if ragd.VectorSpace(idle) != "Coll" {
		// The idle pin's first use comes after the change: it takes the
		// current snapshot, whose live collection is still Coll.
		t.Fatalf("idle pin's space %q", ragd.VectorSpace(idle))
	}
	releaseUsed()
	releaseIdle()
	if err := h.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	if behind, _ := records.Behind(ctx, st.Gen, time.Minute); len(behind) != 0 {
		t.Fatalf("after the pins ended: behind %v", behind)
	}
	// Work a request left running after its release keeps working, pinned
	// to nothing.
	if ragd.VectorSpace(idle) == "" || ragd.VectorSpace(used) == "" {
		t.Fatal("a released pin lost its vector space")
	}
	late, releaseLate := h.Pin(ctx)
	releaseLate()
	if ragd.VectorSpace(late) != "Coll" {
		t.Fatalf("a pin first used after its release: %q", ragd.VectorSpace(late))
	}
	h.Close()
	if behind, _ := records.Behind(ctx, st.Gen+1, time.Minute); len(behind) != 0 {
		t.Fatalf("a closed holder still counted: %v", behind)
	}
}
