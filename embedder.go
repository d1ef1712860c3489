package ragd

import "context"

// Embedder turns texts into vectors of a fixed dimension. Implementations must
// be safe for concurrent use and return one vector per input, in order.
type Embedder interface {
	// Name identifies the model; the store records it so vectors from two
	// different models are never mixed in one collection.
	Name() string
	// Dimension is the length of every vector Embed returns.
	Dimension() int
	// Embed embeds texts, batching internally as the implementation needs.
	Embed(ctx context.Context, texts []string) ([][]float32, error)
}
