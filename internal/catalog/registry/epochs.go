package registry

import (
	"context"
	"errors"
	"net"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
)

// epochMemoAge bounds how long an epoch read from Redis stands in for
// reading it again. Every move of an epoch is announced on the epoch
// channel and drops the memo at once; the bound only limits the damage of
// an announcement lost without the subscription failing (a half-open
// connection, or a move whose announcement failed).
const epochMemoAge = time.Second

// epochs holds namespaces' epochs in memory while this process is
// subscribed to the epoch channel, so a search need not read its
// namespace's epoch from Redis: a search is the hot path, and that read
// was a third of ragd's own CPU per search. Without the subscription
// (not yet confirmed, or lost) nothing is held and every read goes to
// Redis, as before.
type epochs struct {
	mu   sync.Mutex
	live bool // subscribed, confirmed, and no error since
	// moves counts forgets and losses of the subscription: a value read
	// from Redis is kept only if none happened while it was read.
	moves uint64
	known map[string]epochMemo
	now   func() time.Time
}

type epochMemo struct {
	epoch int64
	read  time.Time
}

func newEpochs() *epochs {
	return &epochs{known: map[string]epochMemo{}, now: time.Now}
}

// get returns the namespace's epoch if it is held.
func (e *epochs) get(namespace string) (int64, bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	m, ok := e.known[namespace]
	if !ok || !e.live || e.now().Sub(m.read) >= epochMemoAge {
		return 0, false
	}
	return m.epoch, true
}

// mark is taken before an epoch is read from Redis, and passed to put.
func (e *epochs) mark() uint64 {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.moves
}

// put holds an epoch read from Redis since mark, unless an epoch moved (or
// the subscription was lost) meanwhile: the value read may predate it.
func (e *epochs) put(namespace string, epoch int64, mark uint64) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.live && e.moves == mark {
		e.known[namespace] = epochMemo{epoch: epoch, read: e.now()}
	}
}

// forget drops a namespace's epoch: it moved.
func (e *epochs) forget(namespace string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.moves++
	delete(e.known, namespace)
}

// dropUpTo drops a namespace's held epoch if it is epoch or older: Redis
// has a newer one.
func (e *epochs) dropUpTo(namespace string, epoch int64) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if m, ok := e.known[namespace]; ok && m.epoch <= epoch {
		e.moves++ // a read under way may predate the newer epoch too
		delete(e.known, namespace)
	}
}

// setLive starts holding epochs (the subscription is confirmed) or stops
// and drops them all (it failed: announcements may have been missed).
func (e *epochs) setLive(live bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.moves++
	e.live = live
	clear(e.known)
}

// KnownEpoch returns the namespace's epoch when it is held in memory: read
// from Redis under a live subscription to the epoch channel, within
// epochMemoAge, and not moved since as far as this process has heard.
func (r *Registry) KnownEpoch(namespace string) (int64, bool) {
	return r.epochs.get(namespace)
}

// ForgetEpoch drops the namespace's epoch held in memory, so that the next
// search reads it from Redis. A caller that has seen a change another
// process made (a job it reports completed) calls it, so that it does not
// depend on the announcement having arrived first.
func (r *Registry) ForgetEpoch(namespace string) {
	r.epochs.forget(namespace)
}

// moved is called after a transaction that may have moved the namespace's
// epoch, whatever its outcome: this process forgets the epoch before the
// writer returns, and the others hear of it on the epoch channel.
func (r *Registry) moved(ctx context.Context, namespace string) {
	r.epochs.forget(namespace)
	// A failed announcement leaves other processes' memos to expire
	// (epochMemoAge); the change itself is made.
	_ = r.rdb.Publish(context.WithoutCancel(ctx), r.keys.EpochChannel(), namespace).Err()
}

// WatchEpochs subscribes to the epoch channel until ctx ends, holding
// epochs in memory while the subscription is live (see KnownEpoch). The
// subscription is retried after a failure; meanwhile epochs are read from
// Redis.
func (r *Registry) WatchEpochs(ctx context.Context) {
	ps := r.rdb.Subscribe(ctx, r.keys.EpochChannel())
	stopped := make(chan struct{})
	defer close(stopped)
	go func() {
		select {
		case <-ctx.Done():
		case <-stopped:
		}
		_ = ps.Close() // ends a receive in progress
	}()
	defer r.epochs.setLive(false)
	for ctx.Err() == nil {
		msg, err := ps.ReceiveTimeout(ctx, watchPing)
		switch m := msg.(type) {
		case *redis.Subscription:
			// (Re)subscribed: announcements from here on arrive.
			r.epochs.setLive(m.Kind == "subscribe")
		case *redis.Message:
			r.epochs.forget(m.Payload)
		}
		var nerr net.Error
		switch {
		case err == nil:
		case errors.As(err, &nerr) && nerr.Timeout():
			// Quiet: a PING shows whether the connection still carries
			// messages; if not, the next receive fails.
			_ = ps.Ping(ctx)
		default:
			r.epochs.setLive(false)
			select {
			case <-ctx.Done():
			case <-time.After(watchRetry):
			}
		}
	}
}

// watchPing is how long the epoch subscription may be quiet before it is
// checked, and watchRetry how long after a failure it is tried again.
const (
	watchPing  = 10 * time.Second
	watchRetry = 500 * time.Millisecond
)
