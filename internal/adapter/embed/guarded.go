package embed

import (
	"context"

	"ragd"
	"ragd/internal/platform/resilience"
	"ragd/internal/platform/telemetry"
)

// Guarded wraps e with g — a circuit breaker, a per-call timeout and
// retries of transient failures. Build g with IsTransient and embed.timeout
// as its timeout: the embedder has none of its own. A nil g returns e
// unwrapped.
func Guarded(e ragd.Embedder, g *resilience.Guard) ragd.Embedder {
	if g == nil {
		return e
	}
	if wv, ok := e.(wordVectors); ok {
		return &guardedWords{guarded{e: e, g: g}, wv}
	}
	return &guarded{e: e, g: g}
}

// wordVectors is an embedder with a vector per word, as GloVe is: search's
// neighbour expansion asks the embedder for them, so the wrapper must keep
// the method (a local table lookup, nothing to guard).
type wordVectors interface {
	Vector(word string) []float32
}

type guardedWords struct {
	guarded
	wordVectors
}

type guarded struct {
	e ragd.Embedder
	g *resilience.Guard
}

func (x *guarded) Name() string   { return x.e.Name() }
func (x *guarded) Dimension() int { return x.e.Dimension() }

func (x *guarded) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	return resilience.Do(ctx, x.g, "embed", func(ctx context.Context) ([][]float32, error) {
		if s := telemetry.Current(ctx); s.Recording() {
			s.Set(telemetry.Int(telemetry.KeyTexts, len(texts)))
		}
		return x.e.Embed(ctx, texts)
	})
}
