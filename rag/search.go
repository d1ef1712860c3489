package rag

import (
	"context"
	"strings"
	"time"

	"ragd"
	"ragd/store"
)

// SearchRequest is a rag_search call.
type SearchRequest struct {
	Query  string `json:"query"`
	TopK   *int   `json:"top_k,omitempty"`
	KBName string `json:"kb_name,omitempty"`
}

// SearchResult is one chunk found.
type SearchResult struct {
	ID         string          `json:"id"`
	Text       string          `json:"text"`
	Source     string          `json:"source"`
	Timestamp  time.Time       `json:"timestamp"`
	Score      float64         `json:"score"`
	DocumentID string          `json:"document_id"`
	Path       string          `json:"path"`
	Level      int             `json:"level"`
	Page       int             `json:"page,omitempty"`
	SourceType ragd.SourceType `json:"source_type"`
}

// SearchResponse is the answer to rag_search.
type SearchResponse struct {
	Query   string         `json:"query"`
	Results []SearchResult `json:"results"`
	Count   int            `json:"count"`
}

// Limits of top_k.
const (
	DefaultTopK = 5
	MaxTopK     = 20
)

// Search runs a hybrid search in one namespace.
func (s *Service) Search(ctx context.Context, req SearchRequest) (SearchResponse, error) {
	ns, err := namespaceOf(req.KBName)
	if err != nil {
		return SearchResponse{}, err
	}
	if strings.TrimSpace(req.Query) == "" {
		return SearchResponse{}, ragd.Invalid("query", "missing", "query is required")
	}
	topK, err := topKOf(req.TopK)
	if err != nil {
		return SearchResponse{}, err
	}
	vectors, err := s.Embedder.Embed(ctx, []string{req.Query})
	if err != nil {
		return SearchResponse{}, ragd.Unavailable("embedder", err)
	}
	hits, err := s.currentHits(ctx, ns, store.Query{Text: req.Query, Vector: vectors[0], Mode: store.ModeHybrid,
		Alpha: s.Alpha, Limit: topK})
	if err != nil {
		return SearchResponse{}, err
	}
	resp := SearchResponse{Query: req.Query, Results: make([]SearchResult, 0, len(hits))}
	for _, h := range hits {
		resp.Results = append(resp.Results, SearchResult{ID: h.ID, Text: h.Text, Source: h.Source,
			Timestamp: h.Timestamp, Score: h.Score, DocumentID: h.DocumentID, Path: h.Path, Level: h.Level,
			Page: h.Page, SourceType: h.SourceType})
	}
	resp.Count = len(resp.Results)
	return resp, nil
}

// currentHits searches and drops chunks that do not belong to their
// document's current version: chunks of a version still being written, or of
// one replaced but not yet deleted. When some are dropped it searches again
// with room for them, so the caller still gets up to Limit hits.
func (s *Service) currentHits(ctx context.Context, ns string, q store.Query) ([]store.Hit, error) {
	want := q.Limit
	for attempt := 0; ; attempt++ {
		hits, err := s.Store.Search(ctx, ns, q)
		if err != nil {
			return nil, ragd.Unavailable("weaviate", err)
		}
		current, err := s.currentVersions(ctx, ns, hits)
		if err != nil {
			return nil, err
		}
		kept := hits[:0]
		for _, h := range hits {
			if current[h.DocumentID] == h.ContentHash {
				kept = append(kept, h)
			}
		}
		if len(kept) >= want || len(hits) < q.Limit || attempt == 2 {
			return kept[:min(len(kept), want)], nil
		}
		q.Limit *= 4
	}
}

func (s *Service) currentVersions(ctx context.Context, ns string, hits []store.Hit) (map[string]string, error) {
	seen := map[string]bool{}
	var ids []string
	for _, h := range hits {
		if !seen[h.DocumentID] {
			seen[h.DocumentID] = true
			ids = append(ids, h.DocumentID)
		}
	}
	current, err := s.Registry.CurrentHashes(ctx, ns, ids)
	if err != nil {
		return nil, ragd.Unavailable("redis", err)
	}
	return current, nil
}

// topKOf validates top_k, defaulting to DefaultTopK when absent.
func topKOf(k *int) (int, error) {
	if k == nil {
		return DefaultTopK, nil
	}
	if *k < 1 || *k > MaxTopK {
		return 0, ragd.Invalid("top_k", "value_error", "top_k must be between 1 and %d, not %d", MaxTopK, *k)
	}
	return *k, nil
}
