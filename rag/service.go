// Package rag is ragd's service layer: ingest requests, job polling, search
// and health. REST handlers and MCP tools are thin adapters over it.
package rag

import (
	"context"
	"log/slog"
	"time"

	"github.com/redis/go-redis/v9"

	"ragd"
	"ragd/auth"
	"ragd/cache"
	"ragd/ingest"
	"ragd/jobs"
	"ragd/llm"
	"ragd/registry"
	"ragd/resilience"
	"ragd/store"
	"ragd/vocab"
	"ragd/websearch"
)

// Service answers every ragd request.
type Service struct {
	Store       *store.Store
	Embedder    ragd.Embedder
	Registry    *registry.Registry
	Generations *cache.Generations
	Queue       *jobs.Queue
	Redis       redis.UniversalClient
	Roots       *ingest.Roots
	Fetcher     *ingest.Fetcher
	Guards      resilience.Guards
	// Cache holds results per namespace; nil disables caching.
	Cache *cache.Results
	// QueryVectors caches query embeddings; nil disables it.
	QueryVectors *queryVectors
	// LLM is the chat model for answers; nil means extractive answers.
	LLM *llm.Client
	// Web searches the web for agentic answers; nil when not configured.
	Web websearch.Provider
	// AgentMaxSteps bounds the tool-calling rounds of an agentic answer.
	AgentMaxSteps int
	// Alpha weights vectors against BM25 in hybrid search.
	Alpha float64
	// MMR re-ranks results for diversity, trading relevance by MMRLambda.
	MMR       bool
	MMRLambda float64
	// RRFK is reciprocal rank fusion's k.
	RRFK int
	// Retrieval switches the techniques beyond plain hybrid search.
	Retrieval Retrieval
	// Vocab holds each namespace's vocabulary for query expansion; nil
	// disables expansion.
	Vocab  *vocab.Store
	vocabs *vocabularies // set on first use
	// Thesaurus gives synonyms for synonym expansion (WordNet); nil
	// disables it.
	Thesaurus ragd.Thesaurus
	// MinScore is the query–passage similarity below which rag_query says
	// the documents do not hold the answer.
	MinScore float64
	// MaxSentences bounds extractive answers.
	MaxSentences int
	// Candidates, when 2 or more, ranks that many candidate answers built
	// from different passage subsets and keeps the best.
	Candidates int
	// WaitTimeout bounds how long a wait:true request waits for its job.
	WaitTimeout time.Duration
	// PollInterval is how often a wait:true request checks its job.
	PollInterval time.Duration
	Log          *slog.Logger
}

// namespace validates kb_name (defaulting to the default namespace) and
// checks the caller may use it.
func namespace(ctx context.Context, kb string) (string, error) {
	ns, err := namespaceOf(kb)
	if err != nil {
		return "", err
	}
	return ns, auth.CheckNamespace(ctx, ns)
}

// namespaceOf validates kb_name, defaulting to the default namespace.
func namespaceOf(kb string) (string, error) {
	if kb == "" {
		return ragd.DefaultNamespace, nil
	}
	if !ragd.ValidNamespace(kb) {
		return "", ragd.Invalid("kb_name", "value_error", "kb_name %q is not a valid namespace: %s", kb, ragd.NamespaceRule)
	}
	return kb, nil
}

// Health is the state of each dependency and of its circuit breaker.
type Health struct {
	Healthy    bool              `json:"-"`
	Components map[string]bool   `json:"components"`
	Breakers   map[string]string `json:"breakers"`
}

// Health checks Redis, Weaviate and the embedder, each with a short timeout.
func (s *Service) Health(ctx context.Context) Health {
	ctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	h := Health{Components: map[string]bool{
		"redis":    s.Redis.Ping(ctx).Err() == nil,
		"weaviate": s.Store.Ping(ctx) == nil,
		"embedder": s.embedderHealthy(ctx),
	}}
	h.Breakers = map[string]string{}
	for _, g := range s.Guards.All() {
		// Breakers of optional dependencies that are not configured never
		// trip; listing them would suggest a dependency ragd does not use.
		if (g == s.Guards.LLM && s.LLM == nil) || (g == s.Guards.WebSearch && s.Web == nil) {
			continue
		}
		h.Breakers[g.Name()] = g.State()
	}
	h.Healthy = true
	for _, ok := range h.Components {
		h.Healthy = h.Healthy && ok
	}
	return h
}

func (s *Service) embedderHealthy(ctx context.Context) bool {
	v, err := s.Embedder.Embed(ctx, []string{"health"})
	return err == nil && len(v) == 1 && len(v[0]) == s.Embedder.Dimension()
}
