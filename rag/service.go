// Package rag is ragd's service layer: ingest requests, job polling, search
// and health. REST handlers and MCP tools are thin adapters over it.
package rag

import (
	"context"
	"log/slog"
	"time"

	"github.com/redis/go-redis/v9"

	"ragd"
	"ragd/cache"
	"ragd/ingest"
	"ragd/jobs"
	"ragd/registry"
	"ragd/store"
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
	// Alpha weights vectors against BM25 in hybrid search.
	Alpha float64
	// WaitTimeout bounds how long a wait:true request waits for its job.
	WaitTimeout time.Duration
	// PollInterval is how often a wait:true request checks its job.
	PollInterval time.Duration
	Log          *slog.Logger
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

// Health is the state of each dependency.
type Health struct {
	Healthy    bool            `json:"-"`
	Components map[string]bool `json:"components"`
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
