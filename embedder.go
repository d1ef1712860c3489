package ragd

import (
	"context"
	"fmt"
)

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

// EmbedChunks sets each chunk's Vector to e's embedding of its
// EmbeddingText, in one call.
func EmbedChunks(ctx context.Context, e Embedder, chunks []Chunk) error {
	texts := make([]string, len(chunks))
	for i, c := range chunks {
		texts[i] = c.EmbeddingText()
	}
	vectors, err := embedTexts(ctx, e, texts)
	for i := range vectors {
		chunks[i].Vector = vectors[i]
	}
	return err
}

// EmbedImages sets each picture's Vector as EmbedChunks does a chunk's.
func EmbedImages(ctx context.Context, e Embedder, images []Image) error {
	texts := make([]string, len(images))
	for i, im := range images {
		texts[i] = im.EmbeddingText()
	}
	vectors, err := embedTexts(ctx, e, texts)
	for i := range vectors {
		images[i].Vector = vectors[i]
	}
	return err
}

// embedTexts embeds texts, refusing an answer without one vector each.
func embedTexts(ctx context.Context, e Embedder, texts []string) ([][]float32, error) {
	vectors, err := e.Embed(ctx, texts)
	if err != nil {
		return nil, err
	}
	if len(vectors) != len(texts) {
		return nil, fmt.Errorf("%d vectors for %d texts", len(vectors), len(texts))
	}
	return vectors, nil
}
