// Package store keeps chunks in Weaviate: one collection for all of ragd, one
// tenant per namespace, batch writes over gRPC and hybrid search over gRPC.
package store

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/weaviate/weaviate-go-client/v5/weaviate"
)

// Config says where Weaviate is and how ragd uses it.
type Config struct {
	URL      string // REST endpoint, e.g. http://127.0.0.1:8080; for Connect, a comma-separated list of nodes
	GRPCAddr string // host:port of the gRPC endpoint; for Connect, one per node of URL, in its order
	APIKey   string
	// CAFile is a PEM bundle trusted besides the system's roots for every
	// TLS connection to a node, REST and gRPC (tlsconfig.go).
	CAFile     string
	Collection string
	BatchSize  int
	// Timeout is the Weaviate client's own, which it always applies (60 s
	// when 0): it bounds the calls made outside a guard (start-up checks,
	// health pings). A guarded call's guard starts the same
	// weaviate.timeout first, so that deadline is the one that ends it.
	Timeout time.Duration
	// ReplicationFactor is the number of nodes holding each tenant, set
	// when the collection is created; 0 means 1.
	ReplicationFactor int
	// Consistency (ONE, QUORUM, ALL) is asked of every read and write when
	// ReplicationFactor > 1.
	Consistency string
}

// Store is ragd's view of one Weaviate collection through one node. It is
// safe for concurrent use.
type Store struct {
	client      *weaviate.Client
	wire        *grpcWire    // every gRPC call (grpcwire.go)
	version     *nodeVersion // the node's Weaviate version, for batches
	class       string
	batchSize   int
	replication int    // the collection's replication factor
	consistency string // "" (Weaviate's default) unless replicated
}

// Open connects to one Weaviate node and makes sure the collection exists and
// was made for this embedder: a collection built with another model or
// dimension is a start-up error, never a silent mix of vectors.
func Open(ctx context.Context, cfg Config, embedderName string, dimension int) (*Store, error) {
	s, err := dial(cfg, cfg.URL, cfg.GRPCAddr, 5*time.Second)
	if err != nil {
		return nil, err
	}
	if err := s.ensure(ctx, embedderName, dimension); err != nil {
		return nil, err
	}
	return s, nil
}

// dial builds the client of one node, waiting up to startup for it to be
// ready (0: not at all, for a node that may be down).
func dial(cfg Config, rawURL, grpcAddr string, startup time.Duration) (*Store, error) {
	u, err := url.Parse(rawURL)
	if err != nil || u.Host == "" {
		return nil, fmt.Errorf("weaviate.url %q is not a URL", rawURL)
	}
	tlsConf, err := tlsConfig(cfg.CAFile)
	if err != nil {
		return nil, err
	}
	wc := weaviate.Config{
		Host:           u.Host,
		Scheme:         u.Scheme,
		StartupTimeout: startup,
		Timeout:        cfg.Timeout,
		// REST calls pass the trace on, as gRPC calls do (grpcWire). The
		// client's own REST client when none is given, with the same
		// timeout (its default when none).
		ConnectionClient: restClient(tlsConf, cfg.Timeout),
		// What the client's auth.ApiKey would set; it cannot be given with
		// a ConnectionClient.
		Headers: apiKeyHeaders(cfg.APIKey, u.Host),
	}
	client, err := weaviate.NewClient(wc)
	if err != nil {
		return nil, fmt.Errorf("connect to weaviate at %s (gRPC %s): %w", rawURL, grpcAddr, err)
	}
	batch := cfg.BatchSize
	if batch <= 0 {
		batch = 200
	}
	// TLS as the client decides it: an https node, or gRPC on port 443.
	var secured *tls.Config
	if u.Scheme == "https" || strings.HasSuffix(grpcAddr, ":443") {
		secured = tlsConf
	}
	wire, err := newGRPCWire(grpcAddr, u.Host, secured, cfg.APIKey, cfg.Timeout)
	if err != nil {
		return nil, fmt.Errorf("connect to weaviate's gRPC at %s: %w", grpcAddr, err)
	}
	s := &Store{client: client, wire: wire, class: cfg.Collection, batchSize: batch, replication: max(cfg.ReplicationFactor, 1)}
	s.version = &nodeVersion{read: func() string {
		meta, err := client.Misc().MetaGetter().Do(context.Background())
		if err != nil {
			return ""
		}
		return meta.Version
	}}
	if s.replication > 1 {
		s.consistency = cfg.Consistency
	}
	return s, nil
}

// ensure creates or checks both collections.
func (s *Store) ensure(ctx context.Context, embedderName string, dimension int) error {
	if err := s.ensureCollection(ctx, embedderName, dimension); err != nil {
		return err
	}
	if err := s.ensureImageCollection(ctx, embedderName, dimension); err != nil {
		return err
	}
	return s.backfillAccess(ctx)
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
