// Package versions owns a document's versions: which one is current, and
// the order in which a new one replaces it. A writer takes the document's
// lock (Lock), writes the new version's chunks and images, and Commit
// switches the registry to it, records its vocabulary, deletes the other
// versions' chunks and invalidates the namespace's cached results. The
// switch and the delete each happen only while the lock is still held: a
// writer that lost it (a Redis failover) may be running beside a retry of
// itself. Chunk ids derive from the document, the version's hash and the
// position, so a retry writes the same objects again.
//
// Every writer goes through a Keeper: an ingest job, an archive import, a
// delete and a sync's prune (Remove), the cleanup after a failed or
// cancelled run (Discard), and clearing a namespace (Clear).
package versions

import (
	"context"
	"log/slog"
	"time"

	"ragd/internal/catalog/registry"
	"ragd/internal/catalog/vocab"
	"ragd/internal/platform/cache"
)

// DefaultLockWait is how long a writer waits for another writing the same
// document when Keeper.LockWait is zero.
const DefaultLockWait = 20 * time.Second

// Keeper makes versions current and removes them.
type Keeper struct {
	// Store comes guarded (breaker, timeout, retries).
	Store       Store
	Registry    *registry.Registry
	Generations *cache.Generations
	// Vocab records each current version's words for query expansion; nil
	// skips it.
	Vocab *vocab.Store
	Log   *slog.Logger
	// LockWait bounds the wait for a document's lock; 0 means
	// DefaultLockWait.
	LockWait time.Duration
}

// Lock takes the document's lock, waiting up to LockWait for a writer
// that holds it. The caller releases the lease.
func (k *Keeper) Lock(ctx context.Context, ns, id string) (*registry.Lease, error) {
	wait := k.LockWait
	if wait <= 0 {
		wait = DefaultLockWait
	}
	return k.Registry.Lock(ctx, ns, id, wait)
}

// Invalidate makes every cached result of the namespace unreachable.
func (k *Keeper) Invalidate(ctx context.Context, ns string) error {
	_, err := k.Generations.Bump(ctx, ns)
	return err
}
