package registry_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"ragd"
	"ragd/internal/catalog/registry"
)

// A lease whose lock key is gone (a Redis failover lost it) or held by
// another job switches nothing: PutHeld and Held say ErrLockLost, the
// registry keeps the other job's version, and Release leaves the other
// job's lock alone.
func TestLeaseThatLostItsLockWritesNothing(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	first, err := f.Lock(ctx, "ns", "doc", time.Second)
	if err != nil {
		t.Fatal(err)
	}
	doc := ragd.Document{ID: "doc", Namespace: "ns", Source: "text://doc", ContentHash: "h1", Chunks: 3, UpdatedAt: time.Now()}
	if err := f.PutHeld(ctx, first, doc); err != nil {
		t.Fatalf("PutHeld while held: %v", err)
	}
	keys, err := f.rdb.Keys(ctx, f.keys.DocumentLock("ns", "*")).Result()
	if err != nil || len(keys) != 1 {
		t.Fatalf("lock keys %v, %v", keys, err)
	}
	f.rdb.Del(ctx, keys[0]) // the failover
	if err := first.Held(ctx); !errors.Is(err, registry.ErrLockLost) {
		t.Fatalf("Held after the lock key went: %v", err)
	}
	second, err := f.Lock(ctx, "ns", "doc", time.Second)
	if err != nil {
		t.Fatalf("a second job cannot take the lost lock: %v", err)
	}
	newer := doc
	newer.ContentHash, newer.Chunks = "h2", 5
	if err := f.PutHeld(ctx, second, newer); err != nil {
		t.Fatal(err)
	}
	stale := doc
	stale.ContentHash = "h3"
	if err := f.PutHeld(ctx, first, stale); !errors.Is(err, registry.ErrLockLost) {
		t.Fatalf("PutHeld by the job that lost the lock: %v", err)
	}
	if got, err := f.Get(ctx, "ns", "doc"); err != nil || got.ContentHash != "h2" {
		t.Fatalf("registry holds %+v, %v; want the second job's h2", got, err)
	}
	first.Release()
	if err := second.Held(ctx); err != nil {
		t.Fatalf("the first job's Release took the second job's lock: %v", err)
	}
	second.Release()
	if n, _ := f.rdb.Exists(ctx, keys[0]).Result(); n != 0 {
		t.Fatal("lock still held after its holder released it")
	}
}
