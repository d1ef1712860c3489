package kv_test

import (
	"context"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"ragd/internal/platform/keyspace"
	"ragd/internal/platform/kv"
	"ragd/internal/testkit/testenv"
)

func testRedis(t *testing.T) (*redis.Client, keyspace.Keys) {
	rdb := testenv.RedisClient(t, testenv.RedisURL(t))
	prefix := "test:" + testenv.Unique(t, "K")
	t.Cleanup(func() {
		keys, _ := rdb.Keys(context.Background(), prefix+":*").Result()
		if len(keys) > 0 {
			rdb.Del(context.Background(), keys...)
		}
	})
	return rdb, keyspace.New(prefix)
}

// An older ragd's keys (<p>:<kind>:<ns>) are moved to their tagged names
// once, with their values and TTLs; a name already taken keeps the newer
// key; what is not a namespace's data stays where it is.
func TestMigrate(t *testing.T) {
	rdb, k := testRedis(t)
	ctx := context.Background()
	p := k.Prefix()
	rdb.HSet(ctx, p+":docs:kb", "d1", `{"id":"d1"}`)
	rdb.HSet(ctx, p+":current:kb", "d1", "h1")
	rdb.Set(ctx, p+":epoch:kb", 7, 0)
	rdb.Set(ctx, p+":gen:kb", 3, time.Hour)
	rdb.Set(ctx, p+":gen:other", 1, 0)
	rdb.Set(ctx, k.Generation("other"), 9, 0) // written by a newer ragd already
	rdb.SAdd(ctx, k.Namespaces(), "kb")       // same name in both layouts
	rdb.Set(ctx, p+":lock:kb:d1", "token", time.Minute)

	m, err := kv.Migrate(ctx, rdb, k)
	if err != nil || m.Moved != 4 || len(m.Kept) != 1 || m.Kept[0] != p+":gen:other" || m.Skipped {
		t.Fatalf("migrate: %+v, %v; want 4 moved, %s kept", m, err, p+":gen:other")
	}
	if v := rdb.HGet(ctx, k.Documents("kb"), "d1").Val(); v != `{"id":"d1"}` {
		t.Errorf("documents: %q", v)
	}
	if v := rdb.HGet(ctx, k.Current("kb"), "d1").Val(); v != "h1" {
		t.Errorf("current: %q", v)
	}
	if v, _ := rdb.Get(ctx, k.Epoch("kb")).Int(); v != 7 {
		t.Errorf("epoch: %d", v)
	}
	if ttl := rdb.TTL(ctx, k.Generation("kb")).Val(); ttl <= 0 {
		t.Errorf("the generation lost its TTL: %v", ttl)
	}
	if v, _ := rdb.Get(ctx, k.Generation("other")).Int(); v != 9 {
		t.Errorf("the newer generation was overwritten: %d", v)
	}
	if n := rdb.Exists(ctx, p+":docs:kb", p+":current:kb", p+":epoch:kb", p+":gen:kb").Val(); n != 0 {
		t.Errorf("%d old keys left behind", n)
	}
	if rdb.Exists(ctx, p+":lock:kb:d1").Val() != 1 || !rdb.SIsMember(ctx, k.Namespaces(), "kb").Val() {
		t.Error("a key that is not moved was touched")
	}
	rdb.HSet(ctx, p+":docs:late", "d2", "{}") // written after the layout was recorded
	if m, err := kv.Migrate(ctx, rdb, k); err != nil || !m.Skipped || m.Moved != 0 {
		t.Fatalf("second migrate: %+v, %v; want skipped", m, err)
	}
}
