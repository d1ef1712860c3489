package cache

import (
	"context"
	"encoding/json"
	"log/slog"
	"time"

	lru "github.com/hashicorp/golang-lru/v2"
	"github.com/redis/go-redis/v9"

	"ragd/internal/platform/keyspace"
)

// Observer is told of every lookup, for metrics.
type Observer func(tool string, hit bool)

// Results caches tool results in Redis under keyspace.Keys.CachedResult:
// keys carry the namespaces' write generations, so a result is never served
// after a write to any namespace it was computed from. Redis trouble makes
// the cache miss, never the query fail.
type Results struct {
	rdb     redis.UniversalClient
	keys    keyspace.Keys
	ttl     time.Duration
	gens    *Generations
	log     *slog.Logger
	observe Observer
	// seen holds the generations last read per set of namespaces, for
	// Lookup's one-MGET path.
	seen *lru.Cache[string, string]
}

// seenHeads bounds seen: one entry per set of namespaces searched together.
const seenHeads = 4096

// NewResults returns a result cache; observe may be nil.
func NewResults(rdb redis.UniversalClient, keys keyspace.Keys, ttl time.Duration, gens *Generations, log *slog.Logger, observe Observer) *Results {
	if observe == nil {
		observe = func(string, bool) {}
	}
	seen, _ := lru.New[string, string](seenHeads)
	return &Results{rdb: rdb, keys: keys, ttl: ttl, gens: gens, log: log, observe: observe, seen: seen}
}

// Put stores value at key. Callers store only non-empty results.
func (c *Results) Put(ctx context.Context, tool, key string, value any) {
	if key == "" {
		return
	}
	raw, err := json.Marshal(value)
	if err != nil {
		return
	}
	if err := c.rdb.Set(ctx, key, raw, c.ttl).Err(); err != nil {
		c.log.WarnContext(ctx, "cache write failed", "tool", tool, "error", err)
	}
}
