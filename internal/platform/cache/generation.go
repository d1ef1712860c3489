// Package cache holds ragd's Redis-backed query cache and the per-namespace
// generation counters that invalidate it.
package cache

import (
	"context"
	"fmt"
	"strconv"
	"sync"

	"github.com/redis/go-redis/v9"

	"ragd/internal/platform/keyspace"
)

// Generations counts writes per namespace. Cache keys include the current
// generation, so bumping it on every ingest, delete or clear makes every older
// cached result unreachable at once, on every replica.
type Generations struct {
	rdb  redis.UniversalClient
	keys keyspace.Keys
	also []func(namespace string) string
}

// NewGenerations returns counters kept where keys names them. A
// namespace's generation is its own counter plus the counters whose keys also
// names: the registry's epoch (keyspace.Keys.Epoch), which moves in the same
// transaction that makes a new version current, so results cached before it
// are out of reach even when the writer dies before its own Bump. Counters
// of one namespace should share its hash slot, as the keyspace's do, so one
// MGET reads them on a Redis Cluster.
func NewGenerations(rdb redis.UniversalClient, keys keyspace.Keys, also ...func(namespace string) string) *Generations {
	return &Generations{rdb: rdb, keys: keys, also: also}
}

func (g *Generations) key(namespace string) string { return g.keys.Generation(namespace) }

// Bump advances the namespace's own counter, and so its generation, and
// returns the counter's new value.
func (g *Generations) Bump(ctx context.Context, namespace string) (int64, error) {
	n, err := g.rdb.Incr(ctx, g.key(namespace)).Result()
	if err != nil {
		return 0, fmt.Errorf("cache generation: %w", err)
	}
	return n, nil
}

// Get returns the namespace's generation (0 before its first write). In a
// context from WithGenerationMemo each namespace's is read once.
func (g *Generations) Get(ctx context.Context, namespace string) (int64, error) {
	memo, _ := ctx.Value(memoKey{}).(*generationMemo)
	if memo != nil {
		memo.mu.Lock()
		n, ok := memo.m[namespace]
		memo.mu.Unlock()
		if ok {
			return n, nil
		}
	}
	n, err := g.read(ctx, namespace)
	if err != nil {
		return 0, err
	}
	if memo != nil {
		memo.mu.Lock()
		memo.m[namespace] = n
		memo.mu.Unlock()
	}
	return n, nil
}

// read sums the namespace's counters, read in one round trip.
func (g *Generations) read(ctx context.Context, namespace string) (int64, error) {
	keys := g.counters(namespace)
	vals, err := g.rdb.MGet(ctx, keys...).Result()
	if err != nil {
		return 0, fmt.Errorf("cache generation: %w", err)
	}
	return sumCounters(keys, vals)
}

// sumCounters adds the counters MGET read from keys; a missing one is 0.
func sumCounters(keys []string, vals []any) (int64, error) {
	var sum int64
	for i, v := range vals {
		if v == nil {
			continue
		}
		s, _ := v.(string)
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return 0, fmt.Errorf("cache generation: %s holds %q, not a counter", keys[i], s)
		}
		sum += n
	}
	return sum, nil
}

type memoKey struct{}

// generationMemo holds the generations one request has read.
type generationMemo struct {
	mu sync.Mutex
	m  map[string]int64
}

// WithGenerationMemo returns a context in which Get reads each namespace's
// generation from Redis once: a search reads it for its cache key and again
// for its vocabulary, and both should see the same one anyway. It is for
// one request; a context that has a memo keeps it.
func WithGenerationMemo(ctx context.Context) context.Context {
	if _, ok := ctx.Value(memoKey{}).(*generationMemo); ok {
		return ctx
	}
	return context.WithValue(ctx, memoKey{}, &generationMemo{m: map[string]int64{}})
}
