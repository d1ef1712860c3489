// Package rerank is ragd's client for cross-encoder rerankers behind an
// HTTP API, in the two wire formats such servers speak:
//
//   - tei: Hugging Face text-embeddings-inference, POST {base}/rerank with
//     {query, texts, raw_scores, truncate}, answered by [{index, score}].
//   - cohere: POST {base}/rerank with {model, query, documents, top_n},
//     answered by {results: [{index, relevance_score}]} — Cohere's v2 API
//     (base https://api.cohere.com/v2), Jina's (https://api.jina.ai/v1),
//     vLLM's and llama.cpp server's (http://host:port/v1).
//
// Guarded wraps a client in its own breaker and timeout (rerank.timeout, the
// only one: the client sets none); searches fall back to their fused order
// when it fails.
package rerank
