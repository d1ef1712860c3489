package search

import (
	"context"
	"fmt"
	"sort"

	"ragd"
)

// rerankKey names the rerank stage in a plan's cache key: results ordered
// by one reranker, or with another candidate count, never answer for
// another.
func (s *Service) rerankKey() string {
	if s.Reranker == nil {
		return ""
	}
	return fmt.Sprintf("%s/%d", s.Reranker.Model(), s.RerankCandidates)
}

// rerankPool is how many fused hits a search of topK keeps for the
// reranker: RerankCandidates, and never fewer than top_k.
func (s *Service) rerankPool(topK int) int {
	if s.Reranker == nil {
		return 0
	}
	return max(s.RerankCandidates, topK)
}

// rerank reorders hits by the reranker's scores for query, each hit keeping
// its fields with the reranker's score as its score. When the reranker
// fails (down, slow, an open breaker, a malformed answer) the search is not
// failed: the fused order stands, a warning is logged and the fallback
// counted. A cancelled search stops here.
func (s *Service) rerank(ctx context.Context, query string, hits []ragd.Hit) ([]ragd.Hit, error) {
	if s.Reranker == nil || len(hits) < 2 {
		return hits, nil
	}
	texts := make([]string, len(hits))
	for i, h := range hits {
		texts[i] = h.Text
	}
	scores, err := s.Reranker.Rerank(ctx, query, texts)
	if err == nil && len(scores) != len(hits) {
		err = fmt.Errorf("reranker returned %d scores for %d passages", len(scores), len(hits))
	}
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		s.Log.WarnContext(ctx, "reranker failed; results keep the fused order", "model", s.Reranker.Model(), "candidates", len(hits), "error", err)
		if s.RerankFallback != nil {
			s.RerankFallback(err)
		}
		return hits, nil
	}
	out := make([]ragd.Hit, len(hits))
	copy(out, hits)
	for i := range out {
		out[i].Score = scores[i]
	}
	// Stable: equal scores keep the fused order.
	sort.SliceStable(out, func(i, j int) bool { return out[i].Score > out[j].Score })
	return out, nil
}
