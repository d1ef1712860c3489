package registry_test

import (
	"context"
	"maps"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/redis/go-redis/v9"

	"ragd"
	"ragd/internal/catalog/registry"
)

// hmgetCounter counts HMGET commands, alone or in a pipeline.
type hmgetCounter struct{ n *atomic.Int64 }

func (h hmgetCounter) DialHook(next redis.DialHook) redis.DialHook { return next }

func (h hmgetCounter) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		h.count(cmd)
		return next(ctx, cmd)
	}
}

func (h hmgetCounter) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		for _, c := range cmds {
			h.count(c)
		}
		return next(ctx, cmds)
	}
}

func (h hmgetCounter) count(cmd redis.Cmder) {
	if strings.EqualFold(cmd.Name(), "hmget") {
		h.n.Add(1)
	}
}

func epoch(t *testing.T, r *registry.Registry, ns string) int64 {
	t.Helper()
	e, err := r.Epoch(t.Context(), ns)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func currentAt(t *testing.T, r *registry.Registry, ns string, e int64, ids ...string) map[string]string {
	t.Helper()
	m, err := r.CurrentHashesAt(t.Context(), ns, ids, e)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestEpochMovesWithEveryVersionChange(t *testing.T) {
	r := newRegistry(t)
	ctx := t.Context()
	last := epoch(t, r, "a")
	if last != 0 {
		t.Fatalf("epoch of an unused namespace = %d, want 0", last)
	}
	moved := func(step string) {
		t.Helper()
		e := epoch(t, r, "a")
		if e <= last {
			t.Fatalf("%s: epoch %d did not move past %d", step, e, last)
		}
		last = e
	}
	put(t, r, "a", "s/d1")
	moved("put")
	if err := r.Put(ctx, ragd.Document{ID: "d1", Namespace: "a", Source: "s", ContentHash: "v2"}); err != nil {
		t.Fatal(err)
	}
	moved("new version")
	if err := r.Delete(ctx, "a", "d1"); err != nil {
		t.Fatal(err)
	}
	moved("delete")
	put(t, r, "a", "s/d2")
	moved("put")
	if err := r.ClearNamespace(ctx, "a"); err != nil {
		t.Fatal(err)
	}
	moved("clear") // on, not back to 0: versions read before must not pass for the refilled namespace
	if e := epoch(t, r, "b"); e != 0 {
		t.Fatalf("another namespace's epoch moved to %d", e)
	}
}

func TestCurrentHashesAtReadsOncePerEpoch(t *testing.T) {
	var n atomic.Int64
	f := newFixture(t, hmgetCounter{&n})
	r, ctx := f.Registry, t.Context()
	put(t, r, "a", "s/d1", "s/d2")
	e := epoch(t, r, "a")
	want := map[string]string{"d1": "h-s/d1", "d2": "h-s/d2", "gone": ""}
	if got := currentAt(t, r, "a", e, "d1", "d2", "gone"); !maps.Equal(got, want) {
		t.Fatalf("first read = %v, want %v", got, want)
	}
	reads := n.Load()
	if got := currentAt(t, r, "a", e, "d1", "gone"); got["d1"] != "h-s/d1" || got["gone"] != "" || len(got) != 2 {
		t.Fatalf("second read = %v", got)
	}
	if n.Load() != reads {
		t.Fatalf("a second read at the same epoch went to Redis")
	}

	// A new version moves the epoch: a search that began after it sees it.
	if err := r.Put(ctx, ragd.Document{ID: "d1", Namespace: "a", Source: "s", ContentHash: "v2"}); err != nil {
		t.Fatal(err)
	}
	e2 := epoch(t, r, "a")
	if got := currentAt(t, r, "a", e2, "d1"); got["d1"] != "v2" {
		t.Fatalf("after a new version: d1 = %q, want v2", got["d1"])
	}
	if err := r.Delete(ctx, "a", "d2"); err != nil {
		t.Fatal(err)
	}
	if got := currentAt(t, r, "a", epoch(t, r, "a"), "d2"); got["d2"] != "" {
		t.Fatalf("after delete: d2 = %q, want none", got["d2"])
	}
	if got := currentAt(t, r, "a", e2, "d1", "d2"); got["d2"] != "" || got["d1"] != "v2" {
		t.Fatalf("a search that read an older epoch is answered from now, not from memory: %v", got)
	}
}

func TestCurrentHashesAtStaleEpochIsNotRemembered(t *testing.T) {
	var n atomic.Int64
	f := newFixture(t, hmgetCounter{&n})
	r, ctx := f.Registry, t.Context()
	put(t, r, "a", "s/d1")
	e := epoch(t, r, "a")
	// The version changes between the search's epoch read and its version read.
	if err := r.Put(ctx, ragd.Document{ID: "d1", Namespace: "a", Source: "s", ContentHash: "v2"}); err != nil {
		t.Fatal(err)
	}
	if got := currentAt(t, r, "a", e, "d1"); got["d1"] != "v2" {
		t.Fatalf("d1 = %q, want the version current when read (v2)", got["d1"])
	}
	before := n.Load()
	currentAt(t, r, "a", e, "d1")
	if n.Load() == before {
		t.Fatal("versions read after the epoch moved were remembered for the older epoch")
	}
}

func TestCurrentHashesAtPerNamespace(t *testing.T) {
	r := newRegistry(t)
	put(t, r, "a", "s/d1")
	put(t, r, "b", "s/d1")
	if err := r.Put(t.Context(), ragd.Document{ID: "d1", Namespace: "b", Source: "s", ContentHash: "vb"}); err != nil {
		t.Fatal(err)
	}
	ea, eb := epoch(t, r, "a"), epoch(t, r, "b")
	if got := currentAt(t, r, "a", ea, "d1"); got["d1"] != "h-s/d1" {
		t.Fatalf("a: %v", got)
	}
	if got := currentAt(t, r, "b", eb, "d1"); got["d1"] != "vb" {
		t.Fatalf("b: %v", got)
	}
	if got := currentAt(t, r, "a", ea, "d1"); got["d1"] != "h-s/d1" {
		t.Fatalf("a after b: %v", got)
	}
}
