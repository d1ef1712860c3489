package rag

import (
	"context"
	"ragd"

	lru "github.com/hashicorp/golang-lru/v2"

	"ragd/resilience"
)

// queryVectors caches query embeddings in memory: agents repeat and refine
// queries, and a hosted embedder costs a round trip and money per call.
type queryVectors = lru.Cache[string, []float32]

// NewQueryVectorCache returns a cache of size entries, or nil for size 0.
func NewQueryVectorCache(size int) *queryVectors {
	if size <= 0 {
		return nil
	}
	c, _ := lru.New[string, []float32](size)
	return c
}

// queryVector embeds the plan's query, unless the search is keyword-only.
func (s *Service) queryVector(ctx context.Context, p plan) ([]float32, error) {
	if p.Mode == string(ragd.ModeKeyword) {
		return nil, nil
	}
	return s.embedQuery(ctx, p.Query)
}

func (s *Service) embedQuery(ctx context.Context, query string) ([]float32, error) {
	if s.QueryVectors != nil {
		if v, ok := s.QueryVectors.Get(query); ok {
			return v, nil
		}
	}
	vectors, err := resilience.Do(ctx, s.Guards.Embedder, func(ctx context.Context) ([][]float32, error) {
		return s.Embedder.Embed(ctx, []string{query})
	})
	if err != nil {
		return nil, err
	}
	if s.QueryVectors != nil {
		s.QueryVectors.Add(query, vectors[0])
	}
	return vectors[0], nil
}
