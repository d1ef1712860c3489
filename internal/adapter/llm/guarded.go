package llm

import (
	"context"

	"ragd"
	"ragd/internal/platform/resilience"
)

// Guarded wraps m with g — a circuit breaker, a per-call timeout and
// retries of transient failures. Build g with IsTransient and llm.timeout
// as its timeout. A streamed completion is tried once and without the
// guard's deadline (resilience.DoStream): part of the answer may already be
// with the client, and the client's idle timeout bounds each wait for more
// instead of cutting a long answer off. A nil m (no model configured) stays
// nil; a nil g returns m unwrapped.
func Guarded(m ragd.ChatModel, g *resilience.Guard) ragd.ChatModel {
	if m == nil || g == nil {
		return m
	}
	return &guarded{m: m, g: g}
}

type guarded struct {
	m ragd.ChatModel
	g *resilience.Guard
}

func (x *guarded) Model() string { return x.m.Model() }

func (x *guarded) Complete(ctx context.Context, req ragd.ChatRequest) (ragd.ChatResponse, error) {
	return resilience.Do(ctx, x.g, "complete", func(ctx context.Context) (ragd.ChatResponse, error) { return x.m.Complete(ctx, req) })
}

func (x *guarded) Stream(ctx context.Context, req ragd.ChatRequest, onDelta func(string) error) (ragd.ChatResponse, error) {
	return resilience.DoStream(ctx, x.g, "stream", func(ctx context.Context) (ragd.ChatResponse, error) { return x.m.Stream(ctx, req, onDelta) })
}
