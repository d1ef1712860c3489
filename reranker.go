package ragd

import "context"

// Reranker scores passages against a query with a cross-encoder behind an
// HTTP API (Hugging Face text-embeddings-inference, Cohere, Jina, vLLM,
// llama.cpp server). Searches use it to reorder their fused candidates;
// services receive it already guarded (breaker, timeout).
type Reranker interface {
	// Model names the model (or the server when it serves one), for cache
	// keys and logs.
	Model() string
	// Rerank returns one relevance score per text, in the texts' order:
	// higher is more relevant. Scores compare only within one call.
	Rerank(ctx context.Context, query string, texts []string) ([]float64, error)
}
