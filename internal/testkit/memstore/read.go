package memstore

import (
	"cmp"
	"context"
	"slices"

	"ragd"
)

// Count counts a namespace's chunks, or one document's.
func (s *Store) Count(_ context.Context, namespace, documentID string) (int, error) {
	return s.count(namespace, func(c *ragd.Chunk) bool { return documentID == "" || c.DocumentID == documentID }), nil
}

// CountVersion counts the chunks of one version of a document.
func (s *Store) CountVersion(_ context.Context, namespace, documentID, contentHash string) (int, error) {
	return s.count(namespace, func(c *ragd.Chunk) bool { return c.DocumentID == documentID && c.ContentHash == contentHash }), nil
}

func (s *Store) count(namespace string, match func(*ragd.Chunk) bool) int {
	s.mu.RLock()
	defer s.mu.RUnlock()
	n := 0
	for _, c := range s.chunks[namespace] {
		if match(&c) {
			n++
		}
	}
	return n
}

// DocumentChunks returns up to limit chunks of one version of a document
// from chunk_index from on, in chunk_index order, without vectors or
// related words (a store read returns neither).
func (s *Store) DocumentChunks(_ context.Context, namespace, documentID, contentHash string, from, limit int) ([]ragd.Chunk, error) {
	return s.documentChunks(namespace, documentID, contentHash, from, limit, false), nil
}

// DocumentVectors is DocumentChunks with the chunks' vectors.
func (s *Store) DocumentVectors(_ context.Context, namespace, documentID, contentHash string, from, limit int) ([]ragd.Chunk, error) {
	return s.documentChunks(namespace, documentID, contentHash, from, limit, true), nil
}

func (s *Store) documentChunks(namespace, documentID, contentHash string, from, limit int, vectors bool) []ragd.Chunk {
	s.mu.RLock()
	var out []ragd.Chunk
	for _, c := range s.chunks[namespace] {
		if c.DocumentID == documentID && c.ContentHash == contentHash && c.Index >= from {
			r := read(c)
			if vectors {
				r.Vector = slices.Clone(c.Vector)
			}
			out = append(out, r)
		}
	}
	s.mu.RUnlock()
	slices.SortFunc(out, func(a, b ragd.Chunk) int { return cmp.Compare(a.Index, b.Index) })
	return out[:min(limit, len(out))]
}

// Chunk returns one chunk by id, or nil when the namespace has none.
func (s *Store) Chunk(_ context.Context, namespace, id string) (*ragd.Chunk, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	c, ok := s.chunks[namespace][id]
	if !ok {
		return nil, nil
	}
	c = read(c)
	return &c, nil
}

// read is a chunk as a search or read returns it: no vector, no related
// words, slices of its own.
func read(c ragd.Chunk) ragd.Chunk {
	c.Vector, c.Related = nil, ""
	c.Tags = slices.Clone(c.Tags)
	return c
}

// ScanChunks pages through a namespace's chunks in id order, vectors and
// related words included.
func (s *Store) ScanChunks(_ context.Context, namespace, after string, limit int) ([]ragd.Chunk, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return page(s.chunks[namespace], after, limit, func(c ragd.Chunk) ragd.Chunk {
		c.Tags, c.Vector = slices.Clone(c.Tags), slices.Clone(c.Vector)
		return c
	}), nil
}

// ScanImages pages through a namespace's pictures as ScanChunks does.
func (s *Store) ScanImages(_ context.Context, namespace, after string, limit int) ([]ragd.Image, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return page(s.images[namespace], after, limit, func(im ragd.Image) ragd.Image {
		im.Vector = slices.Clone(im.Vector)
		return im
	}), nil
}

// page is up to limit values of m whose ids follow after, in id order.
func page[T any](m map[string]T, after string, limit int, copyOf func(T) T) []T {
	ids := make([]string, 0, len(m))
	for id := range m {
		if id > after {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	ids = ids[:min(limit, len(ids))]
	out := make([]T, len(ids))
	for i, id := range ids {
		out[i] = copyOf(m[id])
	}
	return out
}
