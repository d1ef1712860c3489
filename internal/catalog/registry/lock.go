package registry

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"ragd/internal/catalog/lease"
)

// lockTTL bounds how long a crashed worker's lock outlives it; a live holder
// renews it every lockTTL/3.
const lockTTL = 30 * time.Second

// ErrLockLost is what a lease's holder gets once its lock is no longer its
// own: it expired while Redis could not be reached, or a Redis failover
// lost it, and another job may be writing the document. The holder must
// stop before it changes anything; the job is retried.
var ErrLockLost = errors.New("this job lost the document's write lock (Redis failed over or could not be reached) and another job may be writing it; will retry")

// Lease is a document's write lock as its holder sees it. Only one job
// writes a document at a time, so a re-ingest can never delete chunks a
// concurrent job has just written — as long as each holder checks, right
// before each change it makes, that the lock is still its own (Held, and
// PutHeld, which checks in the same transaction as the write).
type Lease struct {
	l       *lease.Lease
	stop    chan struct{}
	release sync.Once
}

// Lock takes the document's write lock, waiting up to wait for another job to
// release it. Release the returned lease when done.
func (r *Registry) Lock(ctx context.Context, namespace, id string, wait time.Duration) (*Lease, error) {
	l := &Lease{l: lease.New(r.rdb, r.keys.DocumentLock(namespace, id), lockTTL), stop: make(chan struct{})}
	deadline := time.Now().Add(wait)
	for {
		ok, err := l.l.Acquire(ctx)
		if err != nil {
			return nil, fmt.Errorf("registry lock: %w", err)
		}
		if ok {
			break
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("document %s is being written by another job; will retry", id)
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
	go l.renew()
	return l, nil
}

func (l *Lease) renew() {
	t := time.NewTicker(lockTTL / 3)
	defer t.Stop()
	for {
		select {
		case <-l.stop:
			return
		case <-t.C:
			_, _ = l.l.Renew(context.Background())
		}
	}
}

// Held returns ErrLockLost unless the lock is still this lease's, and
// renews it when it is.
func (l *Lease) Held(ctx context.Context) error {
	held, err := l.l.Renew(ctx)
	if err != nil {
		return fmt.Errorf("registry lock: %w", err)
	}
	if !held {
		return ErrLockLost
	}
	return nil
}

// Release gives the lock up, if it is still this lease's. It may be called
// more than once.
func (l *Lease) Release() {
	l.release.Do(func() {
		close(l.stop)
		_ = l.l.Release(context.Background())
	})
}
