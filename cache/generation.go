// Package cache holds ragd's Redis-backed query cache and the per-namespace
// generation counters that invalidate it.
package cache

import (
	"context"
	"errors"
	"fmt"

	"github.com/redis/go-redis/v9"
)

// Generations counts writes per namespace. Cache keys include the current
// generation, so bumping it on every ingest, delete or clear makes every older
// cached result unreachable at once, on every replica.
type Generations struct {
	rdb    redis.UniversalClient
	prefix string
}

// NewGenerations returns counters whose keys start with prefix.
func NewGenerations(rdb redis.UniversalClient, prefix string) *Generations {
	return &Generations{rdb: rdb, prefix: prefix}
}

func (g *Generations) key(namespace string) string { return g.prefix + ":gen:" + namespace }

// Bump advances the namespace's generation and returns the new value.
func (g *Generations) Bump(ctx context.Context, namespace string) (int64, error) {
	n, err := g.rdb.Incr(ctx, g.key(namespace)).Result()
	if err != nil {
		return 0, fmt.Errorf("cache generation: %w", err)
	}
	return n, nil
}

// Get returns the namespace's generation (0 before its first write).
func (g *Generations) Get(ctx context.Context, namespace string) (int64, error) {
	n, err := g.rdb.Get(ctx, g.key(namespace)).Int64()
	if errors.Is(err, redis.Nil) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("cache generation: %w", err)
	}
	return n, nil
}
