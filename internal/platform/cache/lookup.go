package cache

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/redis/go-redis/v9"
	fastjson "github.com/segmentio/encoding/json"

	"ragd"
	"ragd/internal/platform/telemetry"
)

// Lookup returns the cache key of tool called with args over namespaces
// and whether the result was there (decoded into dst). The generations
// read are remembered in a WithGenerationMemo context, as Get remembers
// them. key is "" when Redis cannot be read (then nothing is cached). A
// nil *Results misses.
//
// One MGET reads the namespaces' generation counters and the result under
// the generations this process last saw for these namespaces; when the
// counters still sum to those, as they mostly do, that is the whole
// lookup. Otherwise, and the first time, a GET reads the result under the
// generations just read. No script computes a key: a Redis Cluster runs a
// script only on keys it is given. Nothing needs the counters of several
// namespaces read at one instant either (on a cluster the MGET is split
// by slot): a result is only ever read under generations read before it,
// and is the one computed at those generations.
func (c *Results) Lookup(ctx context.Context, namespaces []string, tool string, args any, dst any) (key string, hit bool) {
	if c == nil {
		return "", false
	}
	parent := telemetry.Current(ctx)
	ctx, span := telemetry.Start(ctx, "cache.lookup")
	defer func() { endLookup(parent, span, tool, hit) }()
	canonical, err := json.Marshal(args)
	if err != nil {
		return "", false
	}
	// Results of two vector spaces (before and after an embedder switch)
	// are kept apart: a replica not yet switched must not serve the other's.
	if space := ragd.VectorSpace(ctx); space != "" {
		canonical = append([]byte(space+"\x00"), canonical...)
	}
	sum := sha256.Sum256(canonical)
	digest := hex.EncodeToString(sum[:])
	set := strings.Join(namespaces, "+")
	counters := c.gens.countersOf(namespaces)
	read := counters
	seen, known := c.seen.Get(set)
	if known {
		read = append(counters, c.keys.CachedResult(namespaces, seen, tool, digest))
	}
	vals, err := c.rdb.MGet(ctx, read...).Result()
	var gens []string
	if err == nil {
		gens, err = c.gens.sums(counters, vals)
	}
	if err != nil {
		c.log.WarnContext(ctx, "cache disabled for this call: cannot read generations", "tool", tool, "error", err)
		return "", false
	}
	joined := strings.Join(gens, "+")
	key = c.keys.CachedResult(namespaces, joined, tool, digest)
	var raw any
	if known && joined == seen {
		raw = vals[len(counters)]
	} else {
		c.seen.Add(set, joined)
		if raw, err = c.rdb.Get(ctx, key).Result(); err != nil && !errors.Is(err, redis.Nil) {
			c.log.WarnContext(ctx, "cache disabled for this call: cannot read the result", "tool", tool, "error", err)
			return "", false
		}
	}
	c.gens.remember(ctx, namespaces, gens)
	text, found := raw.(string)
	// segmentio's decoder (the go-sdk's) reads what encoding/json wrote in
	// half the time: 6 µs against 14 for a cached search.
	hit = found && fastjson.Unmarshal([]byte(text), dst) == nil
	c.observe(tool, hit)
	return key, hit
}

// countersOf are the counters of namespaces, each namespace's in turn.
func (g *Generations) countersOf(namespaces []string) []string {
	keys := make([]string, 0, (1+len(g.also))*len(namespaces)+1) // and Lookup's result key
	for _, ns := range namespaces {
		keys = append(keys, g.counters(ns)...)
	}
	return keys
}

// sums are the generations MGET read, one per namespace, from the values
// of keys (countersOf) at the start of vals.
func (g *Generations) sums(keys []string, vals []any) ([]string, error) {
	per := 1 + len(g.also)
	if len(vals) < len(keys) {
		return nil, fmt.Errorf("cache generation: %d values for %d counters", len(vals), len(keys))
	}
	gens := make([]string, 0, len(keys)/per)
	for i := 0; i < len(keys); i += per {
		n, err := sumCounters(keys[i:i+per], vals[i:i+per])
		if err != nil {
			return nil, err
		}
		gens = append(gens, strconv.FormatInt(n, 10))
	}
	return gens, nil
}

// remember puts generations just read into ctx's memo.
func (g *Generations) remember(ctx context.Context, namespaces, gens []string) {
	memo, _ := ctx.Value(memoKey{}).(*generationMemo)
	if memo == nil || len(gens) != len(namespaces) {
		return
	}
	memo.mu.Lock()
	defer memo.mu.Unlock()
	for i, ns := range namespaces {
		if n, err := strconv.ParseInt(gens[i], 10, 64); err == nil {
			memo.m[ns] = n
		}
	}
}

// counters are the keys whose sum is a namespace's generation.
func (g *Generations) counters(namespace string) []string {
	keys := []string{g.key(namespace)}
	for _, k := range g.also {
		keys = append(keys, k(namespace))
	}
	return keys
}
