package live

import (
	"context"
	"log/slog"
	"slices"

	"ragd"
)

// Store is the chunk store of whatever snapshot a call's context is
// pinned to (else the current one). While a switch copies, it writes to
// both collections: what it writes to the old one as given, re-embedded
// with the new embedder to the new one. A write to the new collection
// that fails does not fail the call: the namespace is marked, and the
// switch copies its documents again before the cutover.
type Store struct {
	h   *Holder
	log *slog.Logger
}

// NewStore returns the store h follows.
func NewStore(h *Holder, log *slog.Logger) *Store { return &Store{h: h, log: log} }

func (s *Store) live(ctx context.Context) ragd.ChunkStore { return s.h.snapshot(ctx).Live.Store }

// Search implements ragd.ChunkReader.
func (s *Store) Search(ctx context.Context, ns string, q ragd.ChunkQuery) ([]ragd.Hit, error) {
	return s.live(ctx).Search(ctx, ns, q)
}

// SearchImages implements ragd.ChunkReader.
func (s *Store) SearchImages(ctx context.Context, ns string, q ragd.ChunkQuery) ([]ragd.ImageHit, error) {
	return s.live(ctx).SearchImages(ctx, ns, q)
}

// Count implements ragd.ChunkReader.
func (s *Store) Count(ctx context.Context, ns, documentID string) (int, error) {
	return s.live(ctx).Count(ctx, ns, documentID)
}

// CountVersion implements ragd.ChunkReader.
func (s *Store) CountVersion(ctx context.Context, ns, documentID, hash string) (int, error) {
	return s.live(ctx).CountVersion(ctx, ns, documentID, hash)
}

// DocumentChunks implements ragd.ChunkReader.
func (s *Store) DocumentChunks(ctx context.Context, ns, documentID, hash string, from, limit int) ([]ragd.Chunk, error) {
	return s.live(ctx).DocumentChunks(ctx, ns, documentID, hash, from, limit)
}

// DocumentVectors implements ragd.ChunkReader: the vectors of the live
// collection, the space the chunks written with them land in.
func (s *Store) DocumentVectors(ctx context.Context, ns, documentID, hash string, from, limit int) ([]ragd.Chunk, error) {
	return s.live(ctx).DocumentVectors(ctx, ns, documentID, hash, from, limit)
}

// Chunk implements ragd.ChunkReader.
func (s *Store) Chunk(ctx context.Context, ns, id string) (*ragd.Chunk, error) {
	return s.live(ctx).Chunk(ctx, ns, id)
}

// Namespaces implements ragd.ChunkReader.
func (s *Store) Namespaces(ctx context.Context) ([]string, error) { return s.live(ctx).Namespaces(ctx) }

// Collection is the current live collection.
func (s *Store) Collection() string { return s.h.Current().Live.Store.Collection() }

// Ping checks the current live collection's Weaviate.
func (s *Store) Ping(ctx context.Context) error { return s.h.Current().Live.Store.Ping(ctx) }

// ScanChunks implements ragd.ChunkScanner.
func (s *Store) ScanChunks(ctx context.Context, ns, after string, limit int) ([]ragd.Chunk, error) {
	return s.live(ctx).ScanChunks(ctx, ns, after, limit)
}

// ScanImages implements ragd.ChunkScanner.
func (s *Store) ScanImages(ctx context.Context, ns, after string, limit int) ([]ragd.Image, error) {
	return s.live(ctx).ScanImages(ctx, ns, after, limit)
}

// WriteTarget names where a write in ctx goes (its snapshot): writes of
// one target may share a batch (worker.BatchWriter), writes of two may
// not.
func (s *Store) WriteTarget(ctx context.Context) any { return s.h.snapshot(ctx) }

// Upsert implements ragd.ChunkWriter.
func (s *Store) Upsert(ctx context.Context, ns string, chunks []ragd.Chunk) error {
	snap := s.h.snapshot(ctx)
	if err := snap.Live.Store.Upsert(ctx, ns, chunks); err != nil || snap.To == nil {
		return err
	}
	s.alsoTo(ctx, snap, ns, func() error { return UpsertChunks(ctx, snap.To, snap.To.Embedder, ns, chunks) })
	return nil
}

// UpsertImages implements ragd.ChunkWriter.
func (s *Store) UpsertImages(ctx context.Context, ns string, images []ragd.Image) error {
	snap := s.h.snapshot(ctx)
	if err := snap.Live.Store.UpsertImages(ctx, ns, images); err != nil || snap.To == nil {
		return err
	}
	s.alsoTo(ctx, snap, ns, func() error { return UpsertImages(ctx, snap.To, snap.To.Embedder, ns, images) })
	return nil
}

// DeleteStale implements ragd.ChunkWriter.
func (s *Store) DeleteStale(ctx context.Context, ns, documentID, keepHash string) (int, error) {
	snap := s.h.snapshot(ctx)
	n, err := snap.Live.Store.DeleteStale(ctx, ns, documentID, keepHash)
	if err == nil && snap.To != nil {
		s.alsoChange(ctx, snap, ns, func() error {
			_, err := snap.To.Store.DeleteStale(ctx, ns, documentID, keepHash)
			return err
		})
	}
	return n, err
}

// DeleteDocument implements ragd.ChunkWriter.
func (s *Store) DeleteDocument(ctx context.Context, ns, documentID string) (int, error) {
	snap := s.h.snapshot(ctx)
	n, err := snap.Live.Store.DeleteDocument(ctx, ns, documentID)
	if err == nil && snap.To != nil {
		s.alsoChange(ctx, snap, ns, func() error {
			_, err := snap.To.Store.DeleteDocument(ctx, ns, documentID)
			return err
		})
	}
	return n, err
}

// SetAccess implements ragd.ChunkWriter. While a switch copies, the new
// collection is rewritten too and the namespace marked: the copy may have
// read the old access before and write it after.
func (s *Store) SetAccess(ctx context.Context, ns, documentID, hash string, access []string) (int, error) {
	snap := s.h.snapshot(ctx)
	n, err := snap.Live.Store.SetAccess(ctx, ns, documentID, hash, access)
	if err == nil && snap.To != nil {
		s.alsoChange(ctx, snap, ns, func() error {
			_, err := snap.To.Store.SetAccess(ctx, ns, documentID, hash, access)
			return err
		})
	}
	return n, err
}

// ClearNamespace implements ragd.ChunkWriter.
func (s *Store) ClearNamespace(ctx context.Context, ns string) error {
	snap := s.h.snapshot(ctx)
	err := snap.Live.Store.ClearNamespace(ctx, ns)
	if err == nil && snap.To != nil {
		s.alsoChange(ctx, snap, ns, func() error { return snap.To.Store.ClearNamespace(ctx, ns) })
	}
	return err
}

// alsoChange runs a delete or an access change on the new collection and
// marks the namespace: the copy may have read what it changes before and
// write it after, so the switch checks the namespace's documents against
// the registry again.
func (s *Store) alsoChange(ctx context.Context, snap *Snapshot, ns string, change func() error) {
	s.mark(ctx, ns)
	if err := change(); err != nil {
		s.log.WarnContext(ctx, "a delete or access change on the collection being switched to failed; the switch reconciles the namespace",
			"kb_name", ns, "collection", snap.To.Target.Collection, "error", err)
	}
}

// alsoTo runs a write to the new collection; a failure marks the namespace.
func (s *Store) alsoTo(ctx context.Context, snap *Snapshot, ns string, write func() error) {
	if err := write(); err != nil {
		s.log.WarnContext(ctx, "write to the collection being switched to failed; the switch copies the namespace's documents again",
			"kb_name", ns, "collection", snap.To.Target.Collection, "error", err)
		s.mark(ctx, ns)
	}
}

func (s *Store) mark(ctx context.Context, ns string) {
	if err := s.h.records.MarkDirty(context.WithoutCancel(ctx), ns); err != nil {
		s.log.WarnContext(ctx, "namespace not marked for the switch's reconciliation", "kb_name", ns, "error", err)
	}
}

// UpsertChunks writes chunks to side, embedded by e (side's embedder, or
// its bulk one) from the text ingest embedded them from.
func UpsertChunks(ctx context.Context, side *Side, e ragd.Embedder, ns string, chunks []ragd.Chunk) error {
	out, err := EmbedChunks(ctx, e, chunks)
	if err != nil {
		return err
	}
	return side.Store.Upsert(ctx, ns, out)
}

// EmbedChunks returns copies of chunks with e's vectors of the text ingest
// embedded them from; the caller's keep theirs.
func EmbedChunks(ctx context.Context, e ragd.Embedder, chunks []ragd.Chunk) ([]ragd.Chunk, error) {
	out := slices.Clone(chunks)
	return out, ragd.EmbedChunks(ctx, e, out)
}

// UpsertImages writes pictures to side as UpsertChunks writes chunks.
func UpsertImages(ctx context.Context, side *Side, e ragd.Embedder, ns string, images []ragd.Image) error {
	out, err := EmbedImages(ctx, e, images)
	if err != nil {
		return err
	}
	return side.Store.UpsertImages(ctx, ns, out)
}

// EmbedImages is EmbedChunks for pictures.
func EmbedImages(ctx context.Context, e ragd.Embedder, images []ragd.Image) ([]ragd.Image, error) {
	out := slices.Clone(images)
	return out, ragd.EmbedImages(ctx, e, out)
}

// Embedder is the embedder of whatever snapshot a call's context is
// pinned to, else the current one.
type Embedder struct{ h *Holder }

// NewEmbedder returns the embedder h follows.
func NewEmbedder(h *Holder) *Embedder { return &Embedder{h: h} }

// Name is the current live embedder's.
func (e *Embedder) Name() string { return e.h.Current().Live.Embedder.Name() }

// Dimension is the current live embedder's.
func (e *Embedder) Dimension() int { return e.h.Current().Live.Embedder.Dimension() }

// Embed embeds with the pinned (else current) live embedder.
func (e *Embedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	return e.h.snapshot(ctx).Live.Embedder.Embed(ctx, texts)
}
