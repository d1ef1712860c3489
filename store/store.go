// Package store keeps chunks in Weaviate: one collection for all of ragd, one
// tenant per namespace, batch writes over gRPC and hybrid search over gRPC.
package store

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/weaviate/weaviate-go-client/v5/weaviate"
	"github.com/weaviate/weaviate-go-client/v5/weaviate/auth"
	"github.com/weaviate/weaviate-go-client/v5/weaviate/grpc"
)

// Config says where Weaviate is and how ragd uses it.
type Config struct {
	URL        string // REST endpoint, e.g. http://127.0.0.1:8080
	GRPCAddr   string // host:port of the gRPC endpoint
	APIKey     string
	Collection string
	BatchSize  int
	Timeout    time.Duration
}

// Store is ragd's view of one Weaviate collection. It is safe for concurrent use.
type Store struct {
	client    *weaviate.Client
	class     string
	batchSize int

	mu      sync.Mutex
	tenants map[string]bool // tenants known to exist, to skip the create call
}

// Open connects to Weaviate and makes sure the collection exists and was made
// for this embedder: a collection built with another model or dimension is a
// start-up error, never a silent mix of vectors.
func Open(ctx context.Context, cfg Config, embedderName string, dimension int) (*Store, error) {
	u, err := url.Parse(cfg.URL)
	if err != nil || u.Host == "" {
		return nil, fmt.Errorf("weaviate.url %q is not a URL", cfg.URL)
	}
	wc := weaviate.Config{
		Host:           u.Host,
		Scheme:         u.Scheme,
		GrpcConfig:     &grpc.Config{Host: cfg.GRPCAddr, Secured: u.Scheme == "https"},
		StartupTimeout: 5 * time.Second,
		Timeout:        cfg.Timeout,
	}
	if cfg.APIKey != "" {
		wc.AuthConfig = auth.ApiKey{Value: cfg.APIKey}
	}
	client, err := weaviate.NewClient(wc)
	if err != nil {
		return nil, fmt.Errorf("connect to weaviate at %s (gRPC %s): %w", cfg.URL, cfg.GRPCAddr, err)
	}
	batch := cfg.BatchSize
	if batch <= 0 {
		batch = 200
	}
	s := &Store{client: client, class: cfg.Collection, batchSize: batch, tenants: map[string]bool{}}
	if err := s.ensureCollection(ctx, embedderName, dimension); err != nil {
		return nil, err
	}
	if err := s.ensureImageCollection(ctx, embedderName, dimension); err != nil {
		return nil, err
	}
	return s, nil
}

// Collection is the Weaviate class name.
func (s *Store) Collection() string { return s.class }

// Ping reports whether Weaviate is live.
func (s *Store) Ping(ctx context.Context) error {
	ok, err := s.client.Misc().LiveChecker().Do(ctx)
	if err != nil {
		return err
	}
	if !ok {
		return errors.New("weaviate is not live")
	}
	return nil
}

// isMissingTenant recognises Weaviate's answer for a tenant that was never
// created: for ragd that is simply an empty namespace.
func isMissingTenant(err error) bool {
	if err == nil {
		return false
	}
	msg := strings.ToLower(err.Error())
	return strings.Contains(msg, "tenant not found") || strings.Contains(msg, "has no tenant") ||
		(strings.Contains(msg, "tenant") && strings.Contains(msg, "not found"))
}

// Namespaces lists the collection's tenants: every namespace holding chunks.
func (s *Store) Namespaces(ctx context.Context) ([]string, error) {
	tenants, err := s.client.Schema().TenantsGetter().WithClassName(s.class).Do(ctx)
	if err != nil {
		return nil, fmt.Errorf("weaviate: list tenants: %w", err)
	}
	names := make([]string, len(tenants))
	for i, t := range tenants {
		names[i] = t.Name
	}
	return names, nil
}
