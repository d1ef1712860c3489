package rerank

import (
	"context"

	"ragd"
	"ragd/internal/platform/resilience"
)

// Guarded wraps r with g — its own circuit breaker and per-call timeout
// (build g with IsTransient and no retries: a search falls back to its
// fused order sooner than it waits for a second try). A nil r (reranking
// off) stays nil; a nil g returns r unwrapped.
func Guarded(r ragd.Reranker, g *resilience.Guard) ragd.Reranker {
	if r == nil || g == nil {
		return r
	}
	return &guarded{r: r, g: g}
}

type guarded struct {
	r ragd.Reranker
	g *resilience.Guard
}

func (x *guarded) Model() string { return x.r.Model() }

func (x *guarded) Rerank(ctx context.Context, query string, texts []string) ([]float64, error) {
	return resilience.Do(ctx, x.g, "rerank", func(ctx context.Context) ([]float64, error) { return x.r.Rerank(ctx, query, texts) })
}
