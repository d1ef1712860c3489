package store

import (
	"context"
	"errors"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/weaviate/weaviate-go-client/v5/weaviate/fault"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"ragd"
	"ragd/internal/platform/resilience"
	"ragd/internal/testkit/testenv"
)

// deadNode is a loopback address nothing listens on.
func deadNode(t *testing.T) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return addr
}

func clusterConfig(t *testing.T, urls, grpcs string) Config {
	return Config{URL: urls, GRPCAddr: grpcs, Collection: testenv.Unique(t, "T"), BatchSize: 50, Timeout: 5 * time.Second}
}

// A node listed first that refuses connections is passed over: the
// collection is made, writes and searches answer through the live node, and
// the dead one is tried last from then on.
func TestConnectFailsOverAnUnreachableNode(t *testing.T) {
	dead := deadNode(t)
	cfg := clusterConfig(t, "http://"+dead+", "+testenv.WeaviateURL(t), dead+","+testenv.WeaviateGRPC(t))
	c, err := Connect(context.Background(), cfg, "m", 8)
	if err != nil {
		t.Fatal(err)
	}
	live := c.nodes[1].store
	t.Cleanup(func() {
		_ = live.client.Schema().ClassDeleter().WithClassName(cfg.Collection).Do(context.Background())
		_ = live.client.Schema().ClassDeleter().WithClassName(live.imageClass()).Do(context.Background())
	})
	ctx := context.Background()
	c.last.Store(0) // start at the dead node again
	if err := c.Upsert(ctx, "ns", chunks("d1", "h1", "tidal pools hold anemones")); err != nil {
		t.Fatalf("upsert: %v", err)
	}
	if got := c.order()[0]; got != c.nodes[1] {
		t.Fatalf("after the dead node failed, calls start at %s", got.url)
	}
	hits, err := c.Search(ctx, "ns", ragd.ChunkQuery{Text: "anemones", Mode: ragd.ModeKeyword, Limit: 5})
	if err != nil || len(hits) != 1 {
		t.Fatalf("search: %v %v", hits, err)
	}
	if n, err := c.Count(ctx, "ns", ""); err != nil || n != 1 {
		t.Fatalf("count: %d %v", n, err)
	}
	if err := c.Ping(ctx); err != nil {
		t.Fatalf("ping with one node live: %v", err)
	}
}

// With no node answering, start-up fails naming the addresses tried.
func TestConnectWithNoLiveNodeNamesThem(t *testing.T) {
	a, b := deadNode(t), deadNode(t)
	_, err := Connect(context.Background(), clusterConfig(t, "http://"+a+",http://"+b, a+","+b), "m", 8)
	if err == nil || !strings.Contains(err.Error(), a) || !strings.Contains(err.Error(), b) {
		t.Fatalf("want an error naming %s and %s, got %v", a, b, err)
	}
	_, err = Connect(context.Background(), clusterConfig(t, "http://"+a+",http://"+b, a), "m", 8)
	if err == nil || !strings.Contains(err.Error(), "lists 2 nodes") {
		t.Fatalf("unpaired lists: %v", err)
	}
}

// A collection made with one replication factor refuses a ragd configured
// with another, naming both; the same factor opens it.
func TestReplicationFactorMismatchIsAStartupError(t *testing.T) {
	s, cfg := openTestStore(t, "m", 8)
	class, err := s.client.Schema().ClassGetter().WithClassName(cfg.Collection).Do(context.Background())
	if err != nil || class.ReplicationConfig == nil || class.ReplicationConfig.Factor != 1 || class.ReplicationConfig.AsyncEnabled {
		t.Fatalf("created with %+v (%v), want factor 1 without async replication", class.ReplicationConfig, err)
	}
	cfg.ReplicationFactor = 3
	_, err = Connect(context.Background(), cfg, "m", 8)
	if err == nil || !strings.Contains(err.Error(), "replication factor 1 but weaviate.replication_factor is 3") {
		t.Fatalf("want an error naming factors 1 and 3, got %v", err)
	}
	cfg.ReplicationFactor = 1
	if _, err := Connect(context.Background(), cfg, "m", 8); err != nil {
		t.Fatalf("same factor: %v", err)
	}
}

// With factor > 1 the class asks for async replication and time-based
// resolution of deletes.
func TestReplicatedClassDefinition(t *testing.T) {
	s := &Store{replication: 3}
	rc := s.replicated(newClass("X", "m", 8)).ReplicationConfig
	if rc.Factor != 3 || !rc.AsyncEnabled || rc.DeletionStrategy != "TimeBasedResolution" {
		t.Fatalf("replication config %+v", rc)
	}
}

// Node failures (ragd cannot reach the node) fail over; answers of a
// working node do not, and those saying the tenant's replicas are out of
// reach become typed 503s.
func TestErrorClassification(t *testing.T) {
	refused := &net.OpError{Op: "dial", Net: "tcp", Err: errors.New("connect: connection refused")}
	for _, c := range []struct {
		name        string
		err         error
		node, typed bool
	}{
		{"gRPC unavailable", status.Error(codes.Unavailable, "connection refused"), true, false},
		{"dial refused", refused, true, false},
		{"REST no answer", &fault.WeaviateClientError{DerivedFromError: refused}, true, false},
		{"REST 503", &fault.WeaviateClientError{IsUnexpectedStatusCode: true, StatusCode: 503, Msg: "not ready"}, true, false},
		{"deadline", context.DeadlineExceeded, true, false},
		{"no read replica", status.Error(codes.Unknown, "object search at index x: no read replica found"), false, true},
		{"replica refused", status.Error(codes.Unknown, `remote shard object search ns0: connect: Post "http://127.0.0.1:1/…": dial tcp 127.0.0.1:1: connect: connection refused`), false, true},
		{"consistency", errors.New(`weaviate aggregate: cannot achieve consistency level "QUORUM": cannot reach enough replicas`), false, true},
		{"REST 500 replica", &fault.WeaviateClientError{IsUnexpectedStatusCode: true, StatusCode: 500, Msg: "no write replica found"}, false, true},
		{"bad filter", status.Error(codes.InvalidArgument, "invalid filter"), false, false},
		{"canceled", context.Canceled, false, false},
	} {
		if got := IsNodeFailure(c.err); got != c.node {
			t.Errorf("%s: IsNodeFailure %v, want %v", c.name, got, c.node)
		}
		typed := ragd.KindOf(dependencyError(c.err)) == ragd.KindUnavailable
		if typed != c.typed {
			t.Errorf("%s: typed unavailable %v, want %v", c.name, typed, c.typed)
		}
		if c.typed && IsTransient(dependencyError(c.err)) {
			t.Errorf("%s: a typed no-replica error must not count against the breaker", c.name)
		}
	}
}

// hungNode accepts connections and never answers, like a node stuck in a
// long pause.
func hungNode(t *testing.T) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var conns []net.Conn
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		l.Close()
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			c.Close()
		}
	})
	return l.Addr().String()
}

// A node that accepts but never answers costs one timed-out attempt: the
// guard's retry goes to the next node, and the search succeeds.
func TestHungNodeTimesOutAndTheRetryFailsOver(t *testing.T) {
	hung := hungNode(t)
	cfg := clusterConfig(t, "http://"+hung+","+testenv.WeaviateURL(t), hung+","+testenv.WeaviateGRPC(t))
	cfg.Timeout = 2 * time.Second
	c, err := Connect(context.Background(), cfg, "m", 8)
	if err != nil {
		t.Fatal(err)
	}
	live := c.nodes[1].store
	t.Cleanup(func() {
		_ = live.client.Schema().ClassDeleter().WithClassName(cfg.Collection).Do(context.Background())
		_ = live.client.Schema().ClassDeleter().WithClassName(live.imageClass()).Do(context.Background())
	})
	g := resilience.New("weaviate", resilience.Policy{Timeout: time.Second, MaxRetries: 1, FailThreshold: 5, OpenFor: time.Second,
		InitialBackoff: time.Millisecond, MaxBackoff: time.Millisecond}, IsTransient, resilience.Hooks{})
	s := Guarded(c, g)
	c.last.Store(0)
	c.nodes[0].downUntil.Store(0)
	if err := s.Upsert(context.Background(), "ns", chunks("d1", "h1", "tidal pools hold anemones")); err != nil {
		t.Fatalf("upsert through a hung first node: %v", err)
	}
	// Both nodes hung: a typed timeout, not a 500.
	c.nodes[1] = c.nodes[0]
	c.nodes[0].downUntil.Store(0)
	_, err = s.Search(context.Background(), "ns", ragd.ChunkQuery{Text: "anemones", Mode: ragd.ModeKeyword, Limit: 5})
	if ragd.KindOf(err) != ragd.KindUnavailable || !strings.Contains(err.Error(), "did not answer within") {
		t.Fatalf("all nodes hung: %v", err)
	}
}
