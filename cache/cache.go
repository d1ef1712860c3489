package cache

import (
	"context"
	"encoding/json"
	"log/slog"
	"time"

	"github.com/redis/go-redis/v9"
)

// Observer is told of every lookup, for metrics.
type Observer func(tool string, hit bool)

// Results caches tool results in Redis under
// {prefix}:cache:{namespaces}:{generations}:{tool}:{sha256(canonical args)}.
// Keys carry the namespaces' write generations, so a result is never served
// after a write to any namespace it was computed from. Redis trouble makes
// the cache miss, never the query fail.
type Results struct {
	rdb     redis.UniversalClient
	prefix  string
	ttl     time.Duration
	gens    *Generations
	log     *slog.Logger
	observe Observer
}

// NewResults returns a result cache; observe may be nil.
func NewResults(rdb redis.UniversalClient, prefix string, ttl time.Duration, gens *Generations, log *slog.Logger, observe Observer) *Results {
	if observe == nil {
		observe = func(string, bool) {}
	}
	return &Results{rdb: rdb, prefix: prefix, ttl: ttl, gens: gens, log: log, observe: observe}
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
		c.log.Warn("cache write failed", "tool", tool, "error", err)
	}
}
