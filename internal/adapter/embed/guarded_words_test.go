package embed

import (
	"context"
	"testing"
	"time"

	"ragd/internal/platform/resilience"
)

type plainEmbedder struct{}

func (plainEmbedder) Name() string   { return "plain" }
func (plainEmbedder) Dimension() int { return 1 }
func (plainEmbedder) Embed(context.Context, []string) ([][]float32, error) {
	return [][]float32{{1}}, nil
}

type wordEmbedder struct{ plainEmbedder }

func (wordEmbedder) Vector(word string) []float32 { return []float32{float32(len(word))} }

// TestGuardedKeepsWordVectors: wrapping GloVe in its breaker must not hide
// its word vectors, or neighbour expansion silently does nothing in a
// running server (it did).
func TestGuardedKeepsWordVectors(t *testing.T) {
	g := resilience.New("embedder", resilience.Policy{Timeout: time.Second, FailThreshold: 3, OpenFor: time.Second}, nil, resilience.Hooks{})
	wv, ok := Guarded(wordEmbedder{}, g).(wordVectors)
	if !ok {
		t.Fatal("the guarded GloVe-like embedder lost Vector")
	}
	if v := wv.Vector("abc"); len(v) != 1 || v[0] != 3 {
		t.Fatalf("Vector through the guard: %v", v)
	}
	if _, ok := Guarded(plainEmbedder{}, g).(wordVectors); ok {
		t.Fatal("an embedder without word vectors gained Vector")
	}
	if out, err := Guarded(wordEmbedder{}, g).Embed(context.Background(), []string{"x"}); err != nil || len(out) != 1 {
		t.Fatalf("Embed through the guard: %v %v", out, err)
	}
}
