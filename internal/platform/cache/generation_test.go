package cache

import (
	"context"
	"testing"

	"github.com/redis/go-redis/v9"

	"ragd/internal/platform/keyspace"
	"ragd/internal/testkit/testenv"
)

// In a memo context a namespace's generation is read from Redis once, so
// one request sees one generation; outside it every Get reads Redis.
func TestGenerationMemo(t *testing.T) {
	rdb := testClient(t)
	g := NewGenerations(rdb, keyspace.New("test:"+testenv.Unique(t, "G")))
	ctx := context.Background()
	t.Cleanup(func() { rdb.Del(ctx, g.key("ns")) })
	if _, err := g.Bump(ctx, "ns"); err != nil {
		t.Fatal(err)
	}
	memo := WithGenerationMemo(ctx)
	if WithGenerationMemo(memo) != memo {
		t.Error("a context with a memo should keep it")
	}
	first, err := g.Get(memo, "ns")
	if err != nil || first != 1 {
		t.Fatalf("first read: %d, %v", first, err)
	}
	if _, err := g.Bump(ctx, "ns"); err != nil {
		t.Fatal(err)
	}
	if again, _ := g.Get(memo, "ns"); again != first {
		t.Errorf("memo read %d after a bump, want the request's first %d", again, first)
	}
	if now, _ := g.Get(ctx, "ns"); now != 2 {
		t.Errorf("without a memo: %d, want 2", now)
	}
	if other, _ := g.Get(memo, "other"); other != 0 {
		t.Errorf("unwritten namespace: %d, want 0", other)
	}
}

// A generation moves with the counters it also counts (the registry's
// epoch), not only with Bump, and never goes back when one of them moves.
func TestGenerationCountsOtherCounters(t *testing.T) {
	rdb := testClient(t)
	keys := keyspace.New("test:" + testenv.Unique(t, "G"))
	epochKey := keys.Epoch
	g := NewGenerations(rdb, keys, epochKey)
	ctx := context.Background()
	t.Cleanup(func() { rdb.Del(ctx, g.key("ns"), epochKey("ns")) })
	read := func() int64 {
		t.Helper()
		n, err := g.Get(ctx, "ns")
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	if n := read(); n != 0 {
		t.Fatalf("unwritten: %d, want 0", n)
	}
	rdb.Incr(ctx, epochKey("ns"))
	afterEpoch := read()
	if afterEpoch != 1 {
		t.Fatalf("after the epoch moved: %d, want 1", afterEpoch)
	}
	if _, err := g.Bump(ctx, "ns"); err != nil {
		t.Fatal(err)
	}
	if n := read(); n != 2 {
		t.Fatalf("after a bump: %d, want 2", n)
	}
	rdb.Set(ctx, epochKey("ns"), "not a number", 0)
	if _, err := g.Get(ctx, "ns"); err == nil {
		t.Fatal("a counter holding text read as a generation")
	}
}

// testClient connects to the test Redis, closing at the test's end.
func testClient(t *testing.T) *redis.Client {
	t.Helper()
	opts, err := redis.ParseURL(testenv.RedisURL(t))
	if err != nil {
		t.Fatal(err)
	}
	rdb := redis.NewClient(opts)
	t.Cleanup(func() { rdb.Close() })
	return rdb
}
