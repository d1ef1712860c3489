package cache

import (
	"context"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"ragd/internal/testenv"
)

// Lookup reads the generations and the result in one round trip: the key
// moves with either counter of either namespace, a stored result is found
// until then, and a counter holding garbage disables the cache.
func TestLookup(t *testing.T) {
	rdb := testClient(t)
	prefix := "test:" + testenv.Unique(t, "L")
	epoch := func(ns string) string { return prefix + ":epoch:" + ns }
	g := NewGenerations(rdb, prefix, epoch)
	var hits, misses int
	c := NewResults(rdb, prefix, time.Minute, g, slog.New(slog.NewTextHandler(io.Discard, nil)), func(_ string, hit bool) {
		if hit {
			hits++
		} else {
			misses++
		}
	})
	ctx := context.Background()
	t.Cleanup(func() {
		keys, _ := rdb.Keys(ctx, prefix+":*").Result()
		if len(keys) > 0 {
			rdb.Del(ctx, keys...)
		}
	})
	ns := []string{"a", "b"}
	var got string
	key, hit := c.Lookup(ctx, ns, "tool", map[string]int{"k": 1}, &got)
	if hit || !strings.HasPrefix(key, prefix+":cache:a+b:0+0:tool:") {
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
