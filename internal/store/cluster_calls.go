package store

import (
	"context"

	"ragd"
)

// The ChunkStore calls of a Cluster: each is its Store's, on whichever
// node answers.

// Search runs q in the namespace's tenant.
func (c *Cluster) Search(ctx context.Context, namespace string, q ragd.ChunkQuery) ([]ragd.Hit, error) {
	return over(ctx, c, func(s *Store) ([]ragd.Hit, error) { return s.Search(ctx, namespace, q) })
}

// Upsert writes chunks into the namespace's tenant.
func (c *Cluster) Upsert(ctx context.Context, namespace string, chunks []ragd.Chunk) error {
	return c.run(ctx, func(s *Store) error { return s.Upsert(ctx, namespace, chunks) })
}

// DeleteStale removes a document's chunks of versions other than keepHash.
func (c *Cluster) DeleteStale(ctx context.Context, namespace, documentID, keepHash string) (int, error) {
	return over(ctx, c, func(s *Store) (int, error) { return s.DeleteStale(ctx, namespace, documentID, keepHash) })
}

// DeleteDocument removes every chunk and image of a document.
func (c *Cluster) DeleteDocument(ctx context.Context, namespace, documentID string) (int, error) {
	return over(ctx, c, func(s *Store) (int, error) { return s.DeleteDocument(ctx, namespace, documentID) })
}

// SetAccess rewrites the access of one version of a document.
func (c *Cluster) SetAccess(ctx context.Context, namespace, documentID, contentHash string, access []string) (int, error) {
	return over(ctx, c, func(s *Store) (int, error) { return s.SetAccess(ctx, namespace, documentID, contentHash, access) })
}

// ClearNamespace drops the namespace's tenant.
func (c *Cluster) ClearNamespace(ctx context.Context, namespace string) error {
	return c.run(ctx, func(s *Store) error { return s.ClearNamespace(ctx, namespace) })
}

// Count counts a namespace's chunks, or one document's.
func (c *Cluster) Count(ctx context.Context, namespace, documentID string) (int, error) {
	return over(ctx, c, func(s *Store) (int, error) { return s.Count(ctx, namespace, documentID) })
}

// Namespaces lists the collection's tenants.
func (c *Cluster) Namespaces(ctx context.Context) ([]string, error) {
	return over(ctx, c, func(s *Store) ([]string, error) { return s.Namespaces(ctx) })
}

// UpsertImages writes a document's images.
func (c *Cluster) UpsertImages(ctx context.Context, namespace string, images []ragd.Image) error {
	return c.run(ctx, func(s *Store) error { return s.UpsertImages(ctx, namespace, images) })
}

// SearchImages finds images by caption and nearby text.
func (c *Cluster) SearchImages(ctx context.Context, namespace string, q ragd.ChunkQuery) ([]ragd.ImageHit, error) {
	return over(ctx, c, func(s *Store) ([]ragd.ImageHit, error) { return s.SearchImages(ctx, namespace, q) })
}

// ScanChunks pages through a namespace's chunks.
func (c *Cluster) ScanChunks(ctx context.Context, namespace, after string, limit int) ([]ragd.Chunk, error) {
	return over(ctx, c, func(s *Store) ([]ragd.Chunk, error) { return s.ScanChunks(ctx, namespace, after, limit) })
}

// ScanImages pages through a namespace's images.
func (c *Cluster) ScanImages(ctx context.Context, namespace, after string, limit int) ([]ragd.Image, error) {
	return over(ctx, c, func(s *Store) ([]ragd.Image, error) { return s.ScanImages(ctx, namespace, after, limit) })
}

// CountVersion counts the chunks of one version of a document.
func (c *Cluster) CountVersion(ctx context.Context, namespace, documentID, contentHash string) (int, error) {
	return over(ctx, c, func(s *Store) (int, error) { return s.CountVersion(ctx, namespace, documentID, contentHash) })
}

// DocumentChunks reads a document version's chunks in order.
func (c *Cluster) DocumentChunks(ctx context.Context, namespace, documentID, contentHash string, from, limit int) ([]ragd.Chunk, error) {
	return over(ctx, c, func(s *Store) ([]ragd.Chunk, error) {
		return s.DocumentChunks(ctx, namespace, documentID, contentHash, from, limit)
	})
}

// DocumentVectors reads a document version's chunks in order, with
// their vectors.
func (c *Cluster) DocumentVectors(ctx context.Context, namespace, documentID, contentHash string, from, limit int) ([]ragd.Chunk, error) {
	return over(ctx, c, func(s *Store) ([]ragd.Chunk, error) {
		return s.DocumentVectors(ctx, namespace, documentID, contentHash, from, limit)
	})
}

// Chunk reads one chunk by id.
func (c *Cluster) Chunk(ctx context.Context, namespace, id string) (*ragd.Chunk, error) {
	return over(ctx, c, func(s *Store) (*ragd.Chunk, error) { return s.Chunk(ctx, namespace, id) })
}

var _ ragd.ChunkStore = (*Cluster)(nil)
