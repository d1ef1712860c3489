package memstore

import (
	"context"
	"slices"
	"sync"

	"ragd"
)

// Store keeps every namespace's chunks and pictures in memory. It is safe
// for concurrent use.
type Store struct {
	mu sync.RWMutex
	// chunks and images by namespace, then by id. A namespace is listed
	// once it got a chunk, until it is cleared, as a Weaviate tenant is.
	chunks map[string]map[string]ragd.Chunk
	images map[string]map[string]ragd.Image
	// PingErr, when set, is what Ping answers: a store that is down.
	PingErr error
}

// New returns an empty store.
func New() *Store {
	return &Store{chunks: map[string]map[string]ragd.Chunk{}, images: map[string]map[string]ragd.Image{}}
}

var _ ragd.ChunkStore = (*Store)(nil)

// Collection names the fake's collection.
func (s *Store) Collection() string { return "Memory" }

// Ping answers PingErr.
func (s *Store) Ping(context.Context) error { return s.PingErr }

// Upsert writes chunks; an existing id is replaced. The stored copy owns
// its slices, as a store's would.
func (s *Store) Upsert(_ context.Context, namespace string, chunks []ragd.Chunk) error {
	if len(chunks) == 0 {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	m := s.chunks[namespace]
	if m == nil {
		m = map[string]ragd.Chunk{}
		s.chunks[namespace] = m
	}
	for _, c := range chunks {
		c.Namespace = namespace
		c.Tags, c.Vector, c.Access = slices.Clone(c.Tags), slices.Clone(c.Vector), slices.Clone(c.Access)
		m[c.ID] = c
	}
	return nil
}

// UpsertImages writes pictures; an existing id is replaced.
func (s *Store) UpsertImages(_ context.Context, namespace string, images []ragd.Image) error {
	if len(images) == 0 {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	m := s.images[namespace]
	if m == nil {
		m = map[string]ragd.Image{}
		s.images[namespace] = m
	}
	for _, im := range images {
		im.Namespace = namespace
		im.Vector = slices.Clone(im.Vector)
		m[im.ID] = im
	}
	return nil
}

// DeleteStale deletes a document's chunks and images of every version but
// keepHash's and reports how many chunks went.
func (s *Store) DeleteStale(_ context.Context, namespace, documentID, keepHash string) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.deleteWhere(namespace, func(doc, hash string) bool { return doc == documentID && hash != keepHash }), nil
}

// DeleteDocument deletes all of a document's chunks and images.
func (s *Store) DeleteDocument(_ context.Context, namespace, documentID string) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.deleteWhere(namespace, func(doc, _ string) bool { return doc == documentID }), nil
}

// SetAccess rewrites the access of one version's chunks and images.
func (s *Store) SetAccess(_ context.Context, namespace, documentID, contentHash string, access []string) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for id, c := range s.chunks[namespace] {
		if c.DocumentID == documentID && c.ContentHash == contentHash {
			c.Access = slices.Clone(access)
			s.chunks[namespace][id] = c
			n++
		}
	}
	for id, im := range s.images[namespace] {
		if im.DocumentID == documentID && im.ContentHash == contentHash {
			im.Access = slices.Clone(access)
			s.images[namespace][id] = im
		}
	}
	return n, nil
}

// deleteWhere drops the namespace's chunks and images whose document and
// version match; it counts the chunks.
func (s *Store) deleteWhere(namespace string, match func(documentID, contentHash string) bool) int {
	n := 0
	for id, c := range s.chunks[namespace] {
		if match(c.DocumentID, c.ContentHash) {
			delete(s.chunks[namespace], id)
			n++
		}
	}
	for id, im := range s.images[namespace] {
		if match(im.DocumentID, im.ContentHash) {
			delete(s.images[namespace], id)
		}
	}
	return n
}

// ClearNamespace deletes everything of the namespace, which is then no
// longer listed.
func (s *Store) ClearNamespace(_ context.Context, namespace string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.chunks, namespace)
	delete(s.images, namespace)
	return nil
}

// Namespaces lists the namespaces that got chunks and were not cleared.
func (s *Store) Namespaces(context.Context) ([]string, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	names := make([]string, 0, len(s.chunks))
	for ns := range s.chunks {
		names = append(names, ns)
	}
	slices.Sort(names)
	return names, nil
}
