// Package answer writes answers from the documents: a chat model grounded
// in the retrieved passages with numbered citations, an agentic loop that
// lets the model choose between the documents, the web and a direct answer,
// and, without a model, extractive answers from the best-matching
// sentences, optionally ranked among candidates.
package answer

import (
	"context"
	"log/slog"

	"ragd"
	"ragd/internal/adapter/websearch"
	"ragd/internal/platform/cache"
	"ragd/internal/retrieval/search"
)

// Retriever finds the passages an answer is written from.
type Retriever interface {
	Plan(ctx context.Context, req search.RetrieveRequest) (search.Plan, error)
	EmbedQuery(ctx context.Context, query string) ([]float32, error)
	Retrieve(ctx context.Context, p search.Plan, queryVector []float32, withVectors bool) ([]ragd.Hit, error)
	// Diverse is p re-ranked for diversity (MMR), as configured.
	Diverse(p search.Plan) search.Plan
}

// Service answers rag_query and core_query.
type Service struct {
	Search Retriever
	// LLM, the chat model, comes guarded; nil means extractive answers.
	LLM ragd.ChatModel
	// Web searches the web for agentic answers; nil when not configured.
	Web websearch.Provider
	// Cache holds answers per namespace; nil disables caching.
	Cache *cache.Results
	Settings
	Log *slog.Logger
}

// Settings shape answers.
type Settings struct {
	// MinScore is the query–passage similarity below which rag_query says
	// the documents do not hold the answer.
	MinScore float64
	// MaxSentences bounds extractive answers.
	MaxSentences int
	// Candidates, when 2 or more, ranks that many candidate answers built
	// from different passage subsets and keeps the best.
	Candidates int
	// AgentMaxSteps bounds the tool-calling rounds of an agentic answer.
	AgentMaxSteps int
}
