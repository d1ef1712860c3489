package store

import (
	"context"

	"ragd"
	"ragd/resilience"
)

// Guarded wraps s with g — a circuit breaker, a per-call timeout and
// retries of transient failures — so callers never mention a breaker. Build
// g with IsTransient. Ping and Collection pass through: health checks probe
// the store itself, not its breaker. A nil g returns s unwrapped.
func Guarded(s ragd.ChunkStore, g *resilience.Guard) ragd.ChunkStore {
	if g == nil {
		return s
	}
	return &guarded{s: s, g: g}
}

type guarded struct {
	s ragd.ChunkStore
	g *resilience.Guard
}

func (x *guarded) Search(ctx context.Context, namespace string, q ragd.ChunkQuery) ([]ragd.Hit, error) {
	return resilience.Do(ctx, x.g, func(ctx context.Context) ([]ragd.Hit, error) { return x.s.Search(ctx, namespace, q) })
}

func (x *guarded) Upsert(ctx context.Context, namespace string, chunks []ragd.Chunk) error {
	return resilience.Run(ctx, x.g, func(ctx context.Context) error { return x.s.Upsert(ctx, namespace, chunks) })
}

func (x *guarded) DeleteStale(ctx context.Context, namespace, documentID, keepHash string) (int, error) {
	return resilience.Do(ctx, x.g, func(ctx context.Context) (int, error) {
		return x.s.DeleteStale(ctx, namespace, documentID, keepHash)
	})
}

func (x *guarded) DeleteDocument(ctx context.Context, namespace, documentID string) (int, error) {
	return resilience.Do(ctx, x.g, func(ctx context.Context) (int, error) { return x.s.DeleteDocument(ctx, namespace, documentID) })
}

func (x *guarded) ClearNamespace(ctx context.Context, namespace string) error {
	return resilience.Run(ctx, x.g, func(ctx context.Context) error { return x.s.ClearNamespace(ctx, namespace) })
}

func (x *guarded) Count(ctx context.Context, namespace, documentID string) (int, error) {
	return resilience.Do(ctx, x.g, func(ctx context.Context) (int, error) { return x.s.Count(ctx, namespace, documentID) })
}

func (x *guarded) Namespaces(ctx context.Context) ([]string, error) {
	return resilience.Do(ctx, x.g, x.s.Namespaces)
}

func (x *guarded) UpsertImages(ctx context.Context, namespace string, images []ragd.Image) error {
	return resilience.Run(ctx, x.g, func(ctx context.Context) error { return x.s.UpsertImages(ctx, namespace, images) })
}

func (x *guarded) SearchImages(ctx context.Context, namespace string, q ragd.ChunkQuery) ([]ragd.ImageHit, error) {
	return resilience.Do(ctx, x.g, func(ctx context.Context) ([]ragd.ImageHit, error) { return x.s.SearchImages(ctx, namespace, q) })
}

func (x *guarded) ScanChunks(ctx context.Context, namespace, after string, limit int) ([]ragd.Chunk, error) {
	return resilience.Do(ctx, x.g, func(ctx context.Context) ([]ragd.Chunk, error) { return x.s.ScanChunks(ctx, namespace, after, limit) })
}

func (x *guarded) ScanImages(ctx context.Context, namespace, after string, limit int) ([]ragd.Image, error) {
	return resilience.Do(ctx, x.g, func(ctx context.Context) ([]ragd.Image, error) { return x.s.ScanImages(ctx, namespace, after, limit) })
}

func (x *guarded) CountVersion(ctx context.Context, namespace, documentID, contentHash string) (int, error) {
	return resilience.Do(ctx, x.g, func(ctx context.Context) (int, error) {
		return x.s.CountVersion(ctx, namespace, documentID, contentHash)
	})
}

func (x *guarded) DocumentChunks(ctx context.Context, namespace, documentID, contentHash string, from, limit int) ([]ragd.Chunk, error) {
	return resilience.Do(ctx, x.g, func(ctx context.Context) ([]ragd.Chunk, error) {
		return x.s.DocumentChunks(ctx, namespace, documentID, contentHash, from, limit)
	})
}

func (x *guarded) Chunk(ctx context.Context, namespace, id string) (*ragd.Chunk, error) {
	return resilience.Do(ctx, x.g, func(ctx context.Context) (*ragd.Chunk, error) { return x.s.Chunk(ctx, namespace, id) })
}

func (x *guarded) Ping(ctx context.Context) error { return x.s.Ping(ctx) }

func (x *guarded) Collection() string { return x.s.Collection() }
