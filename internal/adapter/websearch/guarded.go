package websearch

import (
	"context"

	"ragd/internal/platform/resilience"
)

// Guarded wraps p with g: a circuit breaker, a per-call timeout and retries
// of transient failures. Build g with IsTransient, e.g.
// resilience.New("websearch", policy, websearch.IsTransient, hooks), so a
// bad key is neither retried nor counted against the provider, and with
// websearch.timeout as the policy's timeout: the provider has none of its
// own. A nil p or g is returned unwrapped.
func Guarded(p Provider, g *resilience.Guard) Provider {
	if p == nil || g == nil {
		return p
	}
	return &guarded{p: p, g: g}
}

type guarded struct {
	p Provider
	g *resilience.Guard
}

func (x *guarded) Name() string { return x.p.Name() }

func (x *guarded) Search(ctx context.Context, query string, maxResults int) ([]Result, error) {
	// Checked outside the guard: the caller's mistake is no attempt at all.
	if err := Validate(query, maxResults); err != nil {
		return nil, err
	}
	return resilience.Do(ctx, x.g, "search", func(ctx context.Context) ([]Result, error) {
		return x.p.Search(ctx, query, maxResults)
	})
}
