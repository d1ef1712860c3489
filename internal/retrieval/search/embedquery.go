package search

import (
	"context"

	"ragd"
	"ragd/internal/platform/telemetry"

	lru "github.com/hashicorp/golang-lru/v2"
)

// QueryVectors caches query embeddings in memory: agents repeat and refine
// queries, and a hosted embedder costs a round trip and money per call.
type QueryVectors = lru.Cache[string, []float32]

// NewQueryVectors returns a cache of size entries, or nil for size 0.
func NewQueryVectors(size int) *QueryVectors {
	if size <= 0 {
		return nil
	}
	c, _ := lru.New[string, []float32](size)
	return c
}

// queryVector embeds the plan's query, unless the search is keyword-only.
func (s *Service) queryVector(ctx context.Context, p Plan) ([]float32, error) {
	if p.Mode == string(ragd.ModeKeyword) {
		return nil, nil
	}
	return s.EmbedQuery(ctx, p.Query)
}

// EmbedQuery embeds a query, from memory when it was embedded before in
// the same vector space (an embedder switch changes it).
func (s *Service) EmbedQuery(ctx context.Context, query string) ([]float32, error) {
	ctx, span := telemetry.Start(ctx, "search.embed_query")
	key := ragd.VectorSpace(ctx) + "\x00" + query
	if s.QueryVectors != nil {
		if v, ok := s.QueryVectors.Get(key); ok {
			endEmbedQuery(span, true, nil)
			return v, nil
		}
	}
	vectors, err := s.Embedder.Embed(ctx, []string{query})
	endEmbedQuery(span, false, err)
	if err != nil {
		return nil, err
	}
	if s.QueryVectors != nil {
		s.QueryVectors.Add(key, vectors[0])
	}
	return vectors[0], nil
}
