package app

import (
	"context"
	"fmt"
	"log/slog"
	"math"
	"time"

	"ragd"
	"ragd/internal/adapter/embed"
	"ragd/internal/adapter/llm"
	"ragd/internal/adapter/rerank"
	"ragd/internal/adapter/websearch"
	"ragd/internal/platform/config"
	"ragd/internal/platform/resilience"
	"ragd/internal/store"
)

// unsetTimeout stands in for a weaviate.timeout or embed.timeout of 0,
// which the config accepts: the Weaviate client and the embedder took 0 to
// mean 60 s before their guards carried the timeout, so it still does.
const unsetTimeout = 60 * time.Second

// depTimeouts is the one timeout of each dependency's calls, each its own
// setting: the guard's per-attempt deadline (a retry gets a fresh one).
// Adapters set none of their own, so a call is never bounded twice.
type depTimeouts struct {
	Weaviate, Embedder, LLM, WebSearch, Reranker time.Duration
}

// orUnset is d, or unsetTimeout for a d of 0.
func orUnset(d time.Duration) time.Duration {
	if d <= 0 {
		return unsetTimeout
	}
	return d
}

// sharedPolicy is the retry and breaker settings every guard shares.
func sharedPolicy(r config.Resilience) resilience.Policy {
	p := resilience.DefaultPolicy()
	p.MaxRetries, p.FailThreshold, p.OpenFor = r.MaxRetries, uint32(r.CircuitFailThreshold), r.CircuitOpenFor
	return p
}

// timeouts reads each dependency's timeout from its own section.
func timeouts(cfg config.Config) depTimeouts {
	return depTimeouts{Weaviate: orUnset(cfg.Weaviate.Timeout), Embedder: orUnset(cfg.Embed.Timeout), LLM: cfg.LLM.Timeout,
		WebSearch: cfg.WebSearch.Timeout, Reranker: cfg.Rerank.Timeout}
}

// newGuards builds one guard per dependency, each bounding an attempt by
// that dependency's own timeout and sharing the retry and breaker settings.
func newGuards(cfg config.Config, hooks resilience.Hooks) resilience.Guards {
	r, t := cfg.Resilience, timeouts(cfg)
	policy := sharedPolicy(r)
	with := func(timeout time.Duration, retries int) resilience.Policy {
		p := policy
		p.Timeout, p.MaxRetries = timeout, retries
		return p
	}
	// The reranker is not retried: a search falls back to its fused order
	// sooner than it waits for a second try.
	return resilience.Guards{
		Weaviate:  resilience.New("weaviate", with(t.Weaviate, r.MaxRetries), store.IsTransient, hooks),
		Embedder:  resilience.New("embedder", with(t.Embedder, r.MaxRetries), embed.IsTransient, hooks),
		LLM:       resilience.New("llm", with(t.LLM, r.MaxRetries), llm.IsTransient, hooks),
		WebSearch: resilience.New("websearch", with(t.WebSearch, r.MaxRetries), websearch.IsTransient, hooks),
		Reranker:  resilience.New("reranker", with(t.Reranker, 0), rerank.IsTransient, hooks),
	}
}

// guards builds the app's guards, reporting to the metrics and log.
func (a *App) guards() resilience.Guards {
	warnToolTimeout(a.Config.Resilience, a.Log)
	if r := a.Config.Worker.JobRetention; r > 0 {
		a.Log.Warn("worker.job_retention is jobs.retention's earlier name: it still applies, but write jobs.retention instead",
			"job_retention", r.String())
	}
	hooks := resilience.Hooks{
		StateChange: func(name string, from, to string) {
			a.Metrics.ObserveBreaker(name, from, to)
			a.Log.Warn("circuit breaker changed state", "dependency", name, "from", from, "to", to)
		},
		Call: a.Metrics.ObserveCall,
	}
	a.hooks = hooks
	g := newGuards(a.Config, hooks)
	for _, x := range g.All() {
		a.Metrics.InitBreaker(x.Name())
	}
	return g
}

// warnToolTimeout tells a config that still sets resilience.tool_timeout
// that it no longer bounds anything (it stacked on each dependency's own
// timeout); the setting is still accepted so old configs load.
func warnToolTimeout(r config.Resilience, log *slog.Logger) {
	if r.ToolTimeout > 0 {
		log.Warn("resilience.tool_timeout is no longer used: each dependency's calls are bounded by its own timeout "+
			"(weaviate.timeout, embed.timeout, llm.timeout, websearch.timeout, rerank.timeout); remove the setting",
			"tool_timeout", r.ToolTimeout.String())
	}
}

// newChatModel is the configured chat model's client, or nil for
// extractive answers. Its idle timeout bounds each wait for more of a
// stream; a completion is bounded by the guard's llm.timeout.
func newChatModel(c config.LLM) (ragd.ChatModel, error) {
	if c.BaseURL == "" {
		return nil, nil
	}
	m, err := llm.New(llm.Config{BaseURL: c.BaseURL, Model: c.Model, APIKey: c.APIKey,
		IdleTimeout: c.Timeout, Temperature: c.Temperature, MaxTokens: c.MaxTokens})
	if err != nil {
		return nil, fmt.Errorf("llm: %w", err)
	}
	return m, nil
}

// newWebSearch is the configured web-search provider, or nil when none is.
func newWebSearch(c config.WebSearch) (websearch.Provider, error) {
	p, err := websearch.New(c.SerpAPIKey, c.SearXNGURL, websearch.Options{})
	if err != nil {
		return nil, fmt.Errorf("websearch: %w", err)
	}
	return p, nil
}

// embedderGuard is the guard of a named embedder (one under embedders):
// its own breaker, so a switch target that fails does not open the live
// embedder's, and its own timeout.
func (a *App) embedderGuard(name string, ec config.Embed) *resilience.Guard {
	p := sharedPolicy(a.Config.Resilience)
	p.Timeout = orUnset(ec.Timeout)
	g := resilience.New("embedder:"+name, p, embed.IsTransient, a.hooks)
	a.Metrics.InitBreaker(g.Name())
	return g
}

// bulkGuard bounds the calls an embedder switch copies with by the
// embedder's timeout only: no retries and a breaker that never opens, as
// the copy retries on its own, honouring Retry-After.
func (a *App) bulkGuard(name string, ec config.Embed) *resilience.Guard {
	p := resilience.DefaultPolicy()
	p.MaxRetries, p.FailThreshold, p.Timeout = 0, math.MaxUint32, orUnset(ec.Timeout)
	return resilience.New("embedder:"+name+":switch", p, embed.IsTransient, resilience.Hooks{Call: a.hooks.Call})
}

// probeEmbedder learns an embedding API's dimension, outside any guard, so
// bounded here by the embedder's own timeout.
func probeEmbedder(ctx context.Context, ec config.Embed, o *embed.OpenAI) error {
	ctx, cancel := context.WithTimeout(ctx, orUnset(ec.Timeout))
	defer cancel()
	if err := o.Probe(ctx); err != nil {
		return fmt.Errorf("embedder at %s: %w", ec.BaseURL, err)
	}
	return nil
}
