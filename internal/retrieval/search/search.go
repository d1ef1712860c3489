package search

import (
	"context"

	"ragd/wire"

	"ragd"
	"ragd/internal/platform/cache"
)

// SearchRequest is a rag_search call.
type SearchRequest = RetrieveRequest

// SearchResponse is wire.SearchResponse, the contract REST, MCP and the client share.
type SearchResponse = wire.SearchResponse

// Search retrieves the chunks that best match a query, from the cache when
// the namespaces have not changed since the same search was last answered.
func (s *Service) Search(ctx context.Context, req SearchRequest) (SearchResponse, error) {
	ctx = cache.WithGenerationMemo(ctx)
	p, err := s.Plan(ctx, req)
	if err != nil {
		return SearchResponse{}, err
	}
	var resp SearchResponse
	key, hit := s.Cache.Lookup(ctx, p.Namespaces, "rag_search", p, &resp)
	if hit {
		resp.Query = req.Query
		return resp, nil
	}
	vector, err := s.queryVector(ctx, p)
	if err != nil {
		return SearchResponse{}, err
	}
	hits, err := s.Retrieve(ctx, p, vector, false)
	if err != nil {
		return SearchResponse{}, err
	}
	resp = SearchResponse{Query: req.Query, Results: make([]Result, len(hits)), Count: len(hits)}
	for i, h := range hits {
		resp.Results[i] = ToResult(h)
	}
	if resp.Count > 0 {
		s.Cache.Put(ctx, "rag_search", key, resp)
	} else if err := s.NoDocuments(ctx, p.Namespaces); err != nil {
		resp.Notice = err.Error()
	}
	return resp, nil
}

// topKOf validates top_k, defaulting to wire.DefaultTopK when absent.
func topKOf(k *int) (int, error) {
	if k == nil {
		return wire.DefaultTopK, nil
	}
	if *k < 1 || *k > wire.MaxTopK {
		return 0, ragd.Invalid("top_k", "value_error", "top_k must be between 1 and %d, not %d", wire.MaxTopK, *k)
	}
	return *k, nil
}

// currentHits searches and drops chunks that do not belong to their
// document's current version: chunks of a version still being written, or of
// one replaced but not yet deleted. When some are dropped it searches again
// with room for them, so the caller still gets up to Limit hits. The
// namespace's registry epoch is read once: from memory when this process
// holds it (registry.KnownEpoch), so the versions most often come from
// memory too; else with the versions, in the one round trip after the
// first search (registry.CurrentHashesNow), which the later attempts reuse.
func (s *Service) currentHits(ctx context.Context, ns string, q ragd.ChunkQuery) ([]ragd.Hit, error) {
	epoch, known := s.Registry.KnownEpoch(ns)
	want := q.Limit
	for attempt := 0; ; attempt++ {
		hits, err := s.Store.Search(ctx, ns, q)
		if err != nil {
			return nil, err
		}
		ids := make([]string, len(hits))
		for i, h := range hits {
			ids[i] = h.DocumentID
		}
		var current map[string]string
		if known {
			current, err = s.Registry.CurrentHashesAt(ctx, ns, sortedSet(ids), epoch)
		} else if current, epoch, err = s.Registry.CurrentHashesNow(ctx, ns, sortedSet(ids)); err == nil {
			known = true
		}
		if err != nil {
			if current, err = s.withoutRedis(ctx, ns, hits, ragd.Unavailable("redis", err)); err != nil {
				return nil, err
			}
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

// currentVersions maps each document id to the content hash of its current
// version, in one registry round trip.
func (s *Service) currentVersions(ctx context.Context, ns string, documentIDs []string) (map[string]string, error) {
	current, err := s.Registry.CurrentHashes(ctx, ns, sortedSet(documentIDs))
	if err != nil {
		return nil, ragd.Unavailable("redis", err)
	}
	return current, nil
}
