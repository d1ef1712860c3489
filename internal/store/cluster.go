package store

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"ragd"
	"ragd/internal/platform/config"
)

// nodeCooldown is how long a node that failed is tried only after the
// others: its circuit, short enough that a restarted node soon gets its
// share again.
const nodeCooldown = 5 * time.Second

// Cluster is ragd's store over one or more Weaviate nodes. Any node serves
// any call (Weaviate routes it to the tenant's replicas); a call whose node
// is down or unreachable goes to the next node, and that node is tried last
// for a few seconds. Each call is whole and idempotent on any node (chunk
// ids are deterministic, deletes by filter), so repeating it elsewhere is
// safe. It implements ragd.ChunkStore and is safe for concurrent use.
type Cluster struct {
	nodes []*member
	last  atomic.Int32 // index of the node that last answered: calls start there
}

// member is one node and its circuit.
type member struct {
	url       string
	store     *Store
	downUntil atomic.Int64 // unix nanoseconds; 0 when healthy
}

// Connect builds a client per node of cfg's lists (config.Nodes of URL and
// GRPCAddr, paired in order), waits up to 5 s for one to be ready, and
// creates or checks the collections through the first that answers. Nodes
// that are down at start-up are used once they come back.
func Connect(ctx context.Context, cfg Config, embedderName string, dimension int) (*Cluster, error) {
	urls, addrs := config.Nodes(cfg.URL), config.Nodes(cfg.GRPCAddr)
	if len(urls) == 0 || len(urls) != len(addrs) {
		return nil, fmt.Errorf("weaviate.url lists %d nodes and weaviate.grpc_addr %d: give each node's REST URL and gRPC address in the same order",
			len(urls), len(addrs))
	}
	c := &Cluster{}
	for i := range urls {
		s, err := dial(cfg, urls[i], addrs[i], 0)
		if err != nil {
			return nil, err
		}
		c.nodes = append(c.nodes, &member{url: urls[i], store: s})
	}
	if err := c.waitLive(ctx, 5*time.Second); err != nil {
		return nil, err
	}
	if err := c.run(ctx, func(s *Store) error { return s.ensure(ctx, embedderName, dimension) }); err != nil {
		return nil, err
	}
	return c, nil
}

// waitLive waits until some node answers, for a ragd started together with
// its Weaviate.
func (c *Cluster) waitLive(ctx context.Context, wait time.Duration) error {
	deadline := time.Now().Add(wait)
	for {
		err := c.Ping(ctx)
		if err == nil {
			return nil
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			return fmt.Errorf("weaviate at %s does not answer: %w", c.urls(), err)
		}
		time.Sleep(250 * time.Millisecond)
	}
}

func (c *Cluster) urls() string {
	var u []string
	for _, n := range c.nodes {
		u = append(u, n.url)
	}
	return strings.Join(u, ", ")
}

// order is the nodes to try: from the one that last answered on, those whose
// circuit is closed first, then the others (a circuit is a hint, never a
// refusal: with every node marked down all are still tried).
func (c *Cluster) order() []*member {
	now := time.Now().UnixNano()
	start := int(c.last.Load())
	var up, down []*member
	for i := range c.nodes {
		n := c.nodes[(start+i)%len(c.nodes)]
		if n.downUntil.Load() > now {
			down = append(down, n)
		} else {
			up = append(up, n)
		}
	}
	return append(up, down...)
}

// over runs fn on the nodes in turn until one answers or fails for a reason
// of its own (a bad request, no replica of the tenant anywhere): a node that
// cannot be reached is marked down and the next one tried. The error is the
// last node's, made a typed dependency error where it is one.
func over[T any](ctx context.Context, c *Cluster, fn func(*Store) (T, error)) (T, error) {
	var err error
	for _, n := range c.order() {
		var v T
		v, err = fn(n.store)
		if err == nil {
			n.downUntil.Store(0)
			c.markLast(n)
			return v, nil
		}
		if !IsNodeFailure(err) {
			break
		}
		n.downUntil.Store(time.Now().Add(nodeCooldown).UnixNano())
		if ctx.Err() != nil {
			break // no time left for another node; the caller's retry starts elsewhere
		}
	}
	var zero T
	return zero, dependencyError(err)
}

func (c *Cluster) run(ctx context.Context, fn func(*Store) error) error {
	_, err := over(ctx, c, func(s *Store) (struct{}, error) { return struct{}{}, fn(s) })
	return err
}

func (c *Cluster) markLast(n *member) {
	for i, m := range c.nodes {
		if m == n {
			c.last.Store(int32(i))
			return
		}
	}
}

// dependencyError types the Weaviate errors that say the data is out of
// reach rather than the request wrong: no live replica of the tenant, too
// few replicas for the consistency level. They are 503s, not retried and
// not counted against Weaviate's breaker — the other namespaces are fine.
func dependencyError(err error) error {
	var re *ragd.Error
	if err == nil || errors.As(err, &re) || IsNodeFailure(err) || !isNoReplica(err) {
		return err
	}
	return &ragd.Error{Kind: ragd.KindUnavailable, RetryAfterSeconds: 5, Err: err,
		Message: "weaviate is unavailable: no live replica holds this namespace (a Weaviate node is down)"}
}

// Ping reports whether any node is live.
func (c *Cluster) Ping(ctx context.Context) error {
	var err error
	for _, n := range c.order() {
		if err = n.store.Ping(ctx); err == nil {
			return nil
		}
	}
	return err
}

// Collection is the Weaviate class name.
func (c *Cluster) Collection() string { return c.nodes[0].store.Collection() }
