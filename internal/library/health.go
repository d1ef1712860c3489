package library

import (
	"context"
	"time"

	"ragd"
	"ragd/internal/platform/resilience"
)

// Probe checks ragd's dependencies for GET /health. It holds them
// unguarded: a health check asks the dependency itself, and must neither
// wait on retries nor trip a breaker.
type Probe struct {
	Redis    interface{ Ping(context.Context) error }
	Store    interface{ Ping(context.Context) error }
	Embedder ragd.Embedder
	// Breakers are the guards of the dependencies this ragd uses.
	Breakers []*resilience.Guard
}

// Health is the state of each dependency and of its circuit breaker.
type Health struct {
	Healthy    bool              `json:"-"`
	Components map[string]bool   `json:"components"`
	Breakers   map[string]string `json:"breakers"`
}

// Health checks Redis, Weaviate and the embedder, each with a short timeout.
func (p *Probe) Health(ctx context.Context) Health {
	ctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	h := Health{Components: map[string]bool{
		"redis":    p.Redis.Ping(ctx) == nil,
		"weaviate": p.Store.Ping(ctx) == nil,
		"embedder": p.embedderHealthy(ctx),
	}, Breakers: map[string]string{}}
	for _, g := range p.Breakers {
		h.Breakers[g.Name()] = g.State()
	}
	h.Healthy = true
	for _, ok := range h.Components {
		h.Healthy = h.Healthy && ok
	}
	return h
}

func (p *Probe) embedderHealthy(ctx context.Context) bool {
	v, err := p.Embedder.Embed(ctx, []string{"health"})
	return err == nil && len(v) == 1 && len(v[0]) == p.Embedder.Dimension()
}
