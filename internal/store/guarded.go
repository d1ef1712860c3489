package store

import (
	"context"

	"ragd"
	"ragd/internal/platform/resilience"
	"ragd/internal/platform/telemetry"
)

// Guarded wraps s with g — a circuit breaker, a per-call timeout and
// retries of transient failures — so callers never mention a breaker. Build
// g with IsTransient. Only the calls that reach Weaviate are wrapped; Ping
// and Collection are s's own (embedded): health checks probe the store
// itself, not its breaker. A nil g returns s unwrapped.
func Guarded(s ragd.ChunkStore, g *resilience.Guard) ragd.ChunkStore {
	if g == nil {
		return s
	}
	return &guarded{ChunkStore: s, g: g}
}

type guarded struct {
	ragd.ChunkStore // the calls that are not guarded pass through
	g               *resilience.Guard
}

func (x *guarded) Search(ctx context.Context, namespace string, q ragd.ChunkQuery) ([]ragd.Hit, error) {
	return resilience.Do(ctx, x.g, "search", func(ctx context.Context) ([]ragd.Hit, error) {
		if s := telemetry.Current(ctx); s.Recording() {
			s.Set(telemetry.String(telemetry.KeyNamespace, namespace), telemetry.String(telemetry.KeyMode, string(q.Mode)),
				telemetry.Int("ragd.search.limit", q.Limit))
		}
		return x.ChunkStore.Search(ctx, namespace, q)
	})
}

func (x *guarded) Upsert(ctx context.Context, namespace string, chunks []ragd.Chunk) error {
	return resilience.Run(ctx, x.g, "upsert", func(ctx context.Context) error {
		if s := telemetry.Current(ctx); s.Recording() {
			s.Set(telemetry.String(telemetry.KeyNamespace, namespace), telemetry.Int(telemetry.KeyChunks, len(chunks)))
		}
		return x.ChunkStore.Upsert(ctx, namespace, chunks)
	})
}

func (x *guarded) DeleteStale(ctx context.Context, namespace, documentID, keepHash string) (int, error) {
	return resilience.Do(ctx, x.g, "delete_stale", func(ctx context.Context) (int, error) {
		return x.ChunkStore.DeleteStale(ctx, namespace, documentID, keepHash)
	})
}

func (x *guarded) DeleteDocument(ctx context.Context, namespace, documentID string) (int, error) {
	return resilience.Do(ctx, x.g, "delete_document", func(ctx context.Context) (int, error) { return x.ChunkStore.DeleteDocument(ctx, namespace, documentID) })
}

func (x *guarded) SetAccess(ctx context.Context, namespace, documentID, contentHash string, access []string) (int, error) {
	return resilience.Do(ctx, x.g, "set_access", func(ctx context.Context) (int, error) {
		return x.ChunkStore.SetAccess(ctx, namespace, documentID, contentHash, access)
	})
}

func (x *guarded) ClearNamespace(ctx context.Context, namespace string) error {
	return resilience.Run(ctx, x.g, "clear_namespace", func(ctx context.Context) error { return x.ChunkStore.ClearNamespace(ctx, namespace) })
}

func (x *guarded) Count(ctx context.Context, namespace, documentID string) (int, error) {
	return resilience.Do(ctx, x.g, "count", func(ctx context.Context) (int, error) { return x.ChunkStore.Count(ctx, namespace, documentID) })
}

func (x *guarded) Namespaces(ctx context.Context) ([]string, error) {
	return resilience.Do(ctx, x.g, "namespaces", x.ChunkStore.Namespaces)
}

func (x *guarded) UpsertImages(ctx context.Context, namespace string, images []ragd.Image) error {
	return resilience.Run(ctx, x.g, "upsert_images", func(ctx context.Context) error { return x.ChunkStore.UpsertImages(ctx, namespace, images) })
}

func (x *guarded) SearchImages(ctx context.Context, namespace string, q ragd.ChunkQuery) ([]ragd.ImageHit, error) {
	return resilience.Do(ctx, x.g, "search_images", func(ctx context.Context) ([]ragd.ImageHit, error) {
		return x.ChunkStore.SearchImages(ctx, namespace, q)
	})
}

func (x *guarded) ScanChunks(ctx context.Context, namespace, after string, limit int) ([]ragd.Chunk, error) {
	return resilience.Do(ctx, x.g, "scan_chunks", func(ctx context.Context) ([]ragd.Chunk, error) {
		return x.ChunkStore.ScanChunks(ctx, namespace, after, limit)
	})
}

func (x *guarded) ScanImages(ctx context.Context, namespace, after string, limit int) ([]ragd.Image, error) {
	return resilience.Do(ctx, x.g, "scan_images", func(ctx context.Context) ([]ragd.Image, error) {
		return x.ChunkStore.ScanImages(ctx, namespace, after, limit)
	})
}

func (x *guarded) CountVersion(ctx context.Context, namespace, documentID, contentHash string) (int, error) {
	return resilience.Do(ctx, x.g, "count_version", func(ctx context.Context) (int, error) {
		return x.ChunkStore.CountVersion(ctx, namespace, documentID, contentHash)
	})
}

func (x *guarded) DocumentChunks(ctx context.Context, namespace, documentID, contentHash string, from, limit int) ([]ragd.Chunk, error) {
	return resilience.Do(ctx, x.g, "document_chunks", func(ctx context.Context) ([]ragd.Chunk, error) {
		return x.ChunkStore.DocumentChunks(ctx, namespace, documentID, contentHash, from, limit)
	})
}

func (x *guarded) DocumentVectors(ctx context.Context, namespace, documentID, contentHash string, from, limit int) ([]ragd.Chunk, error) {
	return resilience.Do(ctx, x.g, "document_vectors", func(ctx context.Context) ([]ragd.Chunk, error) {
		return x.ChunkStore.DocumentVectors(ctx, namespace, documentID, contentHash, from, limit)
	})
}

func (x *guarded) Chunk(ctx context.Context, namespace, id string) (*ragd.Chunk, error) {
	return resilience.Do(ctx, x.g, "chunk", func(ctx context.Context) (*ragd.Chunk, error) { return x.ChunkStore.Chunk(ctx, namespace, id) })
}
