package cache

import (
	"context"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"ragd/internal/platform/keyspace"
	"ragd/internal/testkit/testenv"

	"github.com/redis/go-redis/v9"
)

// Lookup reads the generations and the result under them: the key
// moves with either counter of either namespace, a stored result is found
// until then, and a counter holding garbage disables the cache.
func TestLookup(t *testing.T) {
	rdb := testClient(t)
	prefix := "test:" + testenv.Unique(t, "L")
	keys := keyspace.New(prefix)
	epoch := keys.Epoch
	g := NewGenerations(rdb, keys, epoch)
	var hits, misses int
	c := NewResults(rdb, keys, time.Minute, g, slog.New(slog.NewTextHandler(io.Discard, nil)), func(_ string, hit bool) {
		if hit {
			hits++
		} else {
			misses++
		}
	})
	ctx := context.Background()
	removeOnCleanup(t, rdb, prefix)
	ns := []string{"a", "b"}
	var got string
	key, hit := c.Lookup(ctx, ns, "tool", map[string]int{"k": 1}, &got)
	if hit || !strings.HasPrefix(key, keys.CachedResult(ns, "0+0", "tool", "")) {
		t.Fatalf("first lookup: %q %v", key, hit)
	}
	c.Put(ctx, "tool", key, "answer")
	memo := WithGenerationMemo(ctx)
	if again, hit := c.Lookup(memo, ns, "tool", map[string]int{"k": 1}, &got); !hit || again != key || got != "answer" {
		t.Fatalf("second lookup: %q %v %q", again, hit, got)
	}
	if n, _ := g.Get(memo, "b"); n != 0 { // remembered, not read again
		t.Fatalf("memo: %d", n)
	}
	rdb.Incr(ctx, epoch("b"))
	if moved, hit := c.Lookup(ctx, ns, "tool", map[string]int{"k": 1}, &got); hit || !strings.Contains(moved, ":0+1:") {
		t.Fatalf("after the epoch moved: %q %v", moved, hit)
	}
	g.Bump(ctx, "a")
	if moved, _ := c.Lookup(ctx, ns, "tool", map[string]int{"k": 1}, &got); !strings.Contains(moved, ":1+1:") {
		t.Fatalf("after a bump: %q", moved)
	}
	rdb.Set(ctx, epoch("a"), "garbage", 0)
	if key, hit := c.Lookup(ctx, ns, "tool", map[string]int{"k": 1}, &got); key != "" || hit {
		t.Fatalf("a garbage counter: %q %v, want the cache off", key, hit)
	}
	if hits != 1 || misses != 3 {
		t.Fatalf("observed %d hits, %d misses", hits, misses)
	}
	var nilCache *Results
	if key, hit := nilCache.Lookup(ctx, ns, "tool", 1, &got); key != "" || hit {
		t.Fatal("a nil cache must miss")
	}
}

// commandLog records the names of the commands a client sends.
type commandLog struct{ names []string }

func (l *commandLog) DialHook(next redis.DialHook) redis.DialHook { return next }
func (l *commandLog) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		l.names = append(l.names, cmd.Name())
		return next(ctx, cmd)
	}
}
func (l *commandLog) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return next
}

// A warm lookup is one plain MGET (no Lua), and a result stored under the
// generations it last saw is never served once another writer has moved
// them: neither by this Results nor by one that saw nothing yet.
func TestWarmLookupIsOneMGET(t *testing.T) {
	rdb := testClient(t)
	log := &commandLog{}
	rdb.AddHook(log)
	prefix := "test:" + testenv.Unique(t, "W")
	keys := keyspace.New(prefix)
	epoch := keys.Epoch
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	c := NewResults(rdb, keys, time.Minute, NewGenerations(rdb, keys, epoch), quiet, nil)
	ctx := context.Background()
	removeOnCleanup(t, rdb, prefix)
	ns := []string{"a", "b"}
	var got string
	key, _ := c.Lookup(ctx, ns, "tool", 1, &got)
	c.Put(ctx, "tool", key, "old")
	log.names = nil
	if k, hit := c.Lookup(ctx, ns, "tool", 1, &got); !hit || k != key || got != "old" {
		t.Fatalf("warm lookup: %q %v %q", k, hit, got)
	}
	if strings.Join(log.names, ",") != "mget" {
		t.Fatalf("warm lookup sent %v, want one mget", log.names)
	}
	other := NewResults(rdb, keys, time.Minute, NewGenerations(rdb, keys, epoch), quiet, nil)
	rdb.Incr(ctx, epoch("a")) // another process's write
	for name, r := range map[string]*Results{"this process": c, "a fresh one": other} {
		got = ""
		k, hit := r.Lookup(ctx, ns, "tool", 1, &got)
		if hit || k == key || !strings.Contains(k, ":1+0:") {
			t.Fatalf("%s after a write: %q %v %q, want a miss under the new generations", name, k, hit, got)
		}
	}
	c.Put(ctx, "tool", strings.Replace(key, ":0+0:", ":1+0:", 1), "new")
	log.names = nil
	if _, hit := c.Lookup(ctx, ns, "tool", 1, &got); !hit || got != "new" || strings.Join(log.names, ",") != "mget" {
		t.Fatalf("warm again: %v %q, sent %v", hit, got, log.names)
	}
}

// removeOnCleanup deletes the test's keys, those under prefix, when t ends.
func removeOnCleanup(t *testing.T, rdb *redis.Client, prefix string) {
	t.Cleanup(func() {
		ctx := context.Background()
		keys, _ := rdb.Keys(ctx, prefix+":*").Result()
		if len(keys) > 0 {
			rdb.Del(ctx, keys...)
		}
	})
}
