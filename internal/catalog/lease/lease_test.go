package lease

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"ragd/internal/testkit/testenv"
)

// Only the owner renews or releases a lease; another may take it once it
// is released or has expired.
func TestLeaseHasOneOwner(t *testing.T) {
	opts, err := redis.ParseURL(testenv.RedisURL(t))
	if err != nil {
		t.Fatal(err)
	}
	rdb := redis.NewClient(opts)
	t.Cleanup(func() { rdb.Close() })
	ctx, key := context.Background(), testenv.Unique(t, "lease")
	a, b := New(rdb, key, 300*time.Millisecond), New(rdb, key, time.Minute)
	if a.Owner() == b.Owner() || !strings.Contains(a.Owner(), ":") {
		t.Fatalf("owners %q and %q", a.Owner(), b.Owner())
	}
	if ok, err := a.Acquire(ctx); !ok || err != nil {
		t.Fatalf("a acquires: %v %v", ok, err)
	}
	if ok, _ := b.Acquire(ctx); ok {
		t.Fatal("b took a held lease")
	}
	if ok, _ := b.Renew(ctx); ok {
		t.Fatal("b renewed a's lease")
	}
	if err := b.Release(ctx); err != nil || rdb.Get(ctx, key).Val() != a.Owner() {
		t.Fatalf("b's release touched a's lease: %v", err)
	}
	if ok, _ := a.Renew(ctx); !ok {
		t.Fatal("a could not renew its lease")
	}
	time.Sleep(400 * time.Millisecond) // a's lease expires
	if ok, _ := a.Renew(ctx); ok {
		t.Fatal("a renewed an expired lease")
	}
	if ok, _ := b.Acquire(ctx); !ok {
		t.Fatal("b could not take the expired lease")
	}
	if err := a.Release(ctx); err != nil || rdb.Get(ctx, key).Val() != b.Owner() {
		t.Fatal("a's release took b's lease")
	}
	if err := b.Release(ctx); err != nil || rdb.Exists(ctx, key).Val() != 0 {
		t.Fatal("b's release left the key")
	}
}
