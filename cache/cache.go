package cache

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"log/slog"
	"strconv"
	"strings"
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

// Key returns the cache key of tool called with args over namespaces, or ""
// when the generations cannot be read (then nothing is cached). A nil
// *Results is caching switched off: every key is "", Get misses and Put
// stores nothing.
func (c *Results) Key(ctx context.Context, namespaces []string, tool string, args any) string {
	if c == nil {
		return ""
	}
	gens := make([]string, len(namespaces))
	for i, ns := range namespaces {
		g, err := c.gens.Get(ctx, ns)
		if err != nil {
			c.log.Warn("cache disabled for this call: cannot read generation", "kb_name", ns, "error", err)
			return ""
		}
		gens[i] = strconv.FormatInt(g, 10)
	}
	canonical, err := json.Marshal(args)
	if err != nil {
		return ""
	}
	sum := sha256.Sum256(canonical)
	return c.prefix + ":cache:" + strings.Join(namespaces, "+") + ":" + strings.Join(gens, "+") + ":" + tool + ":" + hex.EncodeToString(sum[:])
}

// Get decodes the cached result at key into dst and reports whether it was there.
func (c *Results) Get(ctx context.Context, tool, key string, dst any) bool {
	if key == "" {
		return false
	}
	raw, err := c.rdb.Get(ctx, key).Bytes()
	hit := err == nil && json.Unmarshal(raw, dst) == nil
	if err != nil && !errors.Is(err, redis.Nil) {
		c.log.Warn("cache read failed; answering uncached", "tool", tool, "error", err)
	}
	c.observe(tool, hit)
	c.log.Debug("cache lookup", "tool", tool, "hit", hit)
	return hit
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
