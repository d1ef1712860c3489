package search

import (
	"context"

	"ragd"
)

// The result cache, the generations and the vocabulary are optimisations
// of a search, and each is skipped when Redis cannot answer. The current
// versions are not: they keep a search from showing a version still being
// written or one already replaced. When Redis cannot tell them (it is
// down, or a failover outlasts the wait for it), a search still answers,
// from Weaviate: each document's version is what this process last knew
// of it (registry.Registry.LastKnownHashes), else the newest among the
// hits (by the chunks' time of indexing), which is the current one but
// while a new version is being written. It is logged and counted
// (ragd_search_redis_fallbacks_total), and the uncached answer is not
// cached either, as the cache is Redis.

// withoutRedis maps each hit's document to the version a search shows
// when the current versions could not be read (err): see above. An error
// other than Redis being unavailable is returned as it is.
func (s *Service) withoutRedis(ctx context.Context, ns string, hits []ragd.Hit, err error) (map[string]string, error) {
	if ragd.KindOf(err) != ragd.KindUnavailable {
		return nil, err
	}
	s.Log.WarnContext(ctx, "search answered without Redis: versions from memory and the store", "kb_name", ns, "error", err)
	if s.RedisFallback != nil {
		s.RedisFallback(err)
	}
	ids := make([]string, len(hits))
	for i, h := range hits {
		ids[i] = h.DocumentID
	}
	current := s.Registry.LastKnownHashes(ns, ids)
	newest := map[string]ragd.Hit{}
	for _, h := range hits {
		if _, known := current[h.DocumentID]; known {
			continue
		}
		if n, ok := newest[h.DocumentID]; !ok || h.Timestamp.After(n.Timestamp) {
			newest[h.DocumentID] = h
		}
	}
	for id, h := range newest {
		current[id] = h.ContentHash
	}
	return current, nil
}
