package registry

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
)

// Epoch returns the namespace's epoch: a counter that Put, Delete and
// ClearNamespace move in the same transaction as the current versions they
// change, so two reads at one epoch see the same current versions. It
// comes from memory when held (KnownEpoch), else from Redis.
func (r *Registry) Epoch(ctx context.Context, namespace string) (int64, error) {
	if n, ok := r.epochs.get(namespace); ok {
		return n, nil
	}
	mark := r.epochs.mark()
	n, err := r.rdb.Get(ctx, r.keys.Epoch(namespace)).Int64()
	if errors.Is(err, redis.Nil) {
		n, err = 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("registry: %w", err)
	}
	r.epochs.put(namespace, n, mark)
	return n, nil
}

// CurrentHashesNow is CurrentHashes for a caller that does not hold the
// namespace's epoch (KnownEpoch): it reads the epoch with the versions, in
// one transaction, holds both in memory as Epoch and CurrentHashesAt do,
// and returns the epoch for the caller's next reads.
func (r *Registry) CurrentHashesNow(ctx context.Context, namespace string, ids []string) (map[string]string, int64, error) {
	mark := r.epochs.mark()
	out, epoch, err := r.readAtEpoch(ctx, namespace, ids)
	if err != nil {
		return nil, 0, err
	}
	r.epochs.put(namespace, epoch, mark)
	r.current.store(namespace, epoch, out)
	return out, epoch, nil
}

// CurrentHashesAt is CurrentHashes for a caller that read the namespace's
// epoch when its request began (concurrently with its search, so the read
// costs no time). Ids already read at that epoch come from memory; the rest
// are read with the epoch in one transaction and remembered when it has not
// moved. A search thus sees the current versions as of a moment after it
// began, most often without a round trip of its own.
func (r *Registry) CurrentHashesAt(ctx context.Context, namespace string, ids []string, epoch int64) (map[string]string, error) {
	out, missing := r.current.lookup(namespace, epoch, ids)
	if len(missing) == 0 {
		return out, nil
	}
	fresh, read, err := r.readAtEpoch(ctx, namespace, missing)
	if err != nil {
		return nil, err
	}
	for id, h := range fresh {
		out[id] = h
	}
	if read == epoch {
		r.current.store(namespace, epoch, fresh)
	} else if read > epoch {
		// The epoch the search began at was stale: its move's announcement
		// has not arrived (or was lost). Searches read it anew from here on
		// instead of until the announcement or epochMemoAge.
		r.epochs.dropUpTo(namespace, epoch)
	}
	return out, nil
}

// LastKnownHashes is the current versions of ids that this process last
// read, however old (ids it never read are absent): for a search that
// cannot read them from Redis (search/degraded.go), never for one that can.
func (r *Registry) LastKnownHashes(namespace string, ids []string) map[string]string {
	r.current.mu.Lock()
	defer r.current.mu.Unlock()
	out := make(map[string]string, len(ids))
	if at := r.current.ns[namespace]; at != nil {
		for _, id := range ids {
			if h, ok := at.hash[id]; ok {
				out[id] = h
			}
		}
	}
	return out
}

// currentMaxAge bounds how long versions read at one epoch are reused. The
// epoch moves with every change ragd makes, so this only limits the damage
// of a writer that changes versions without moving it (an older ragd during
// an upgrade).
const currentMaxAge = 10 * time.Second

// currentMaxIDs bounds the ids remembered, over all namespaces.
const currentMaxIDs = 100_000

// currentCache remembers, per namespace, the current versions read at its
// latest epoch.
type currentCache struct {
	mu    sync.Mutex
	ns    map[string]*currentAt
	total int // ids held, over all namespaces
}

type currentAt struct {
	epoch int64
	since time.Time
	hash  map[string]string // document id → current content hash ("" for none)
}

func (at *currentAt) fresh(epoch int64) bool {
	return at != nil && at.epoch == epoch && time.Since(at.since) < currentMaxAge
}

func newCurrentCache() *currentCache { return &currentCache{ns: map[string]*currentAt{}} }

// lookup returns the versions of ids known at epoch, and the ids not known.
func (c *currentCache) lookup(namespace string, epoch int64, ids []string) (map[string]string, []string) {
	out := make(map[string]string, len(ids))
	var missing []string
	c.mu.Lock()
	defer c.mu.Unlock()
	at := c.ns[namespace]
	if !at.fresh(epoch) {
		return out, ids
	}
	for _, id := range ids {
		if h, ok := at.hash[id]; ok {
			out[id] = h
		} else {
			missing = append(missing, id)
		}
	}
	return out, missing
}

// store remembers versions read at epoch. A newer epoch replaces what an
// older one read; an older one is ignored. When the ids held would pass
// currentMaxIDs, expired namespaces are dropped first, then all.
func (c *currentCache) store(namespace string, epoch int64, hashes map[string]string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	at := c.ns[namespace]
	if at != nil && epoch < at.epoch && time.Since(at.since) < currentMaxAge {
		return
	}
	if !at.fresh(epoch) {
		c.drop(namespace)
		at = &currentAt{epoch: epoch, since: time.Now(), hash: make(map[string]string, len(hashes))}
		c.ns[namespace] = at
	}
	if c.total+len(hashes) > currentMaxIDs {
		for ns, other := range c.ns {
			if ns != namespace && time.Since(other.since) >= currentMaxAge {
				c.drop(ns)
			}
		}
	}
	if c.total+len(hashes) > currentMaxIDs {
		c.ns = map[string]*currentAt{namespace: at}
		c.total = len(at.hash)
	}
	for id, h := range hashes {
		if c.total >= currentMaxIDs {
			return
		}
		if _, ok := at.hash[id]; !ok {
			c.total++
		}
		at.hash[id] = h
	}
}

// drop forgets a namespace's versions.
func (c *currentCache) drop(namespace string) {
	if at := c.ns[namespace]; at != nil {
		c.total -= len(at.hash)
		delete(c.ns, namespace)
	}
}

// readAtEpoch reads the current versions of ids and the namespace's epoch
// in one transaction: the versions as of that epoch.
func (r *Registry) readAtEpoch(ctx context.Context, namespace string, ids []string) (map[string]string, int64, error) {
	var get *redis.StringCmd
	var hmget *redis.SliceCmd
	_, err := r.rdb.TxPipelined(ctx, func(p redis.Pipeliner) error {
		get = p.Get(ctx, r.keys.Epoch(namespace))
		if len(ids) > 0 {
			hmget = p.HMGet(ctx, r.keys.Current(namespace), ids...)
		}
		return nil
	})
	if err != nil && !errors.Is(err, redis.Nil) {
		return nil, 0, fmt.Errorf("registry: %w", err)
	}
	epoch, err := get.Int64()
	if errors.Is(err, redis.Nil) {
		epoch, err = 0, nil
	}
	if err != nil {
		return nil, 0, fmt.Errorf("registry: %w", err)
	}
	out := make(map[string]string, len(ids))
	if hmget != nil {
		for i, v := range hmget.Val() {
			s, _ := v.(string)
			out[ids[i]] = s
		}
	}
	return out, epoch, nil
}
