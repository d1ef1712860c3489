// Package search finds the chunks and pictures that best match a query: it
// plans a retrieval, expands the query with the namespace's own words,
// searches each namespace through the chunk store, fuses and diversifies
// the results, drops chunks of versions that are not current and caches
// what it found per namespace generation.
package search

import (
	"log/slog"

	"ragd"
	"ragd/internal/catalog/registry"
	"ragd/internal/catalog/vocab"
	"ragd/internal/platform/cache"
)

// Service answers rag_search, core_retrieve_text and core_retrieve_visual,
// and retrieves the passages answers are written from.
type Service struct {
	// Store and Embedder come guarded (breaker, timeout, retries).
	Store    ragd.ChunkReader
	Embedder ragd.Embedder
	// Registry tells each document's current version.
	Registry *registry.Registry
	// Generations tell when a namespace's vocabulary changed.
	Generations *cache.Generations
	// Cache holds results per namespace; nil disables caching.
	Cache *cache.Results
	// QueryVectors caches query embeddings; nil disables it.
	QueryVectors *QueryVectors
	// Vocab holds each namespace's vocabulary for query expansion; nil
	// disables expansion.
	Vocab *vocab.Store
	// Thesaurus gives synonyms for synonym expansion (WordNet); nil
	// disables it.
	Thesaurus ragd.Thesaurus
	// Models are the optional models consulted beyond the embedder.
	Models
	Settings
	Log    *slog.Logger
	vocabs *vocabularies // set on first use
}

// Models are the optional models a search consults besides the embedder;
// each comes guarded, and nil leaves its stage out.
type Models struct {
	// Rewriter, the chat model, writes hypothetical answers for
	// Retrieval.Rewrite.
	Rewriter ragd.ChatModel
	// Reranker reorders the fused candidates (Settings.RerankCandidates
	// of them) before the top_k are kept.
	Reranker ragd.Reranker
	// RerankFallback, when set, is told of each search that kept its fused
	// order because the reranker failed (for a metric).
	RerankFallback func(err error)
	// RedisFallback, when set, is told of each namespace search that
	// could not read the current versions from Redis and answered from
	// the store alone (degraded.go; for a metric).
	RedisFallback func(err error)
}

// Settings weigh and shape retrieval.
type Settings struct {
	// Alpha weights vectors against BM25 in hybrid search.
	Alpha float64
	// MMR re-ranks results for diversity, trading relevance by MMRLambda.
	MMR       bool
	MMRLambda float64
	// RRFK is reciprocal rank fusion's k.
	RRFK int
	// Retrieval switches the techniques beyond plain hybrid search.
	Retrieval Retrieval
	// RerankCandidates is how many fused hits the Reranker reorders (at
	// least top_k).
	RerankCandidates int
}
