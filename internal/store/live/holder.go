package live

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"ragd"
)

// Side is one target, built: its embedder and its collection's store.
type Side struct {
	Target   Target
	Embedder ragd.Embedder
	Store    ragd.ChunkStore
	// Provider and Model describe the embedder for GET /embedder.
	Provider, Model string
	// BatchSize is how many texts one embedding request carries.
	BatchSize int
	// Bulk is the embedder a switch copies with: bounded by the same
	// timeout, but neither retried nor broken by a circuit breaker — the
	// copy paces itself (Retry-After, backoff) and pauses while it fails.
	Bulk ragd.Embedder
	// Drop deletes the collection (chunks and pictures).
	Drop func(context.Context) error
}

// Builder builds the side of a target: the named embedder (DefaultName or
// a key of embedders) and a store of the collection, created for that
// embedder when absent. It fails for a name the config does not have.
type Builder func(ctx context.Context, t Target) (*Side, error)

// Snapshot is the state as one process follows it, built.
type Snapshot struct {
	State State
	Live  *Side
	// To is the switch's target while processes write to both.
	To   *Side
	pins atomic.Int64
}

// DefaultPoll is how often a process reads the state: a switch's phases
// reach every process within about this long.
const DefaultPoll = time.Second

// Holder follows the state in one process.
type Holder struct {
	records *Records
	build   Builder
	log     *slog.Logger
	poll    time.Duration
	replica string

	cur     atomic.Pointer[Snapshot]
	mu      sync.Mutex // guards sides and older, and serializes refreshes
	sides   map[Target]*Side
	older   []*Snapshot // replaced, perhaps still pinned
	stop    chan struct{}
	done    chan struct{}
	started atomic.Bool
	closing sync.Once
}

// NewHolder reads the state and builds what it names: a live target whose
// embedder the config lacks is an error naming it.
func NewHolder(ctx context.Context, records *Records, build Builder, poll time.Duration, log *slog.Logger) (*Holder, error) {
	if poll <= 0 {
		poll = DefaultPoll
	}
	var id [8]byte
	_, _ = rand.Read(id[:])
	h := &Holder{records: records, build: build, log: log, poll: poll, replica: hex.EncodeToString(id[:]),
		sides: map[Target]*Side{}, stop: make(chan struct{}), done: make(chan struct{})}
	if err := h.Refresh(ctx); err != nil {
		return nil, err
	}
	return h, nil
}

// Records are the state's records.
func (h *Holder) Records() *Records { return h.records }

// Poll is how often the holder reads the state.
func (h *Holder) Poll() time.Duration { return h.poll }

// Current is the snapshot new requests pin.
func (h *Holder) Current() *Snapshot { return h.cur.Load() }

// Side returns t built, building it once.
func (h *Holder) Side(ctx context.Context, t Target) (*Side, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.side(ctx, t)
}

func (h *Holder) side(ctx context.Context, t Target) (*Side, error) {
	if s, ok := h.sides[t]; ok {
		return s, nil
	}
	s, err := h.build(ctx, t)
	if err != nil {
		return nil, err
	}
	h.sides[t] = s
	return s, nil
}

// Built returns t's side if this process has built it, else nil; it
// builds nothing (no embedder call, no collection created).
func (h *Holder) Built(t Target) *Side {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.sides[t]
}

// Forget drops t's side from the holder's cache (its collection is gone).
func (h *Holder) Forget(t Target) {
	h.mu.Lock()
	defer h.mu.Unlock()
	delete(h.sides, t)
}

// Refresh reads the state now and follows it, then acknowledges what it
// follows.
func (h *Holder) Refresh(ctx context.Context) error {
	st, err := h.records.Load(ctx)
	if err != nil {
		return err
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if cur := h.cur.Load(); cur == nil || cur.State.Gen != st.Gen { // progress alone moves no generation
		if err := h.follow(ctx, st); err != nil {
			return err
		}
	}
	acked := h.acked()
	if acked < st.Gen {
		h.log.Debug("embedder state: requests pinned to an older state still running", "gen", st.Gen, "acked", acked)
	}
	return h.records.Ack(ctx, h.replica, acked)
}

// follow builds st's snapshot and makes it current. A target no longer
// named is forgotten (its collection is about to be dropped).
func (h *Holder) follow(ctx context.Context, st State) error {
	live, err := h.side(ctx, st.Live)
	if err != nil {
		return fmt.Errorf("live embedder %q (collection %s): %w", st.Live.Name, st.Live.Collection, err)
	}
	next := &Snapshot{State: st, Live: live}
	if st.Writes() {
		if next.To, err = h.side(ctx, st.Switch.To); err != nil {
			return fmt.Errorf("embedder %q being switched to: %w", st.Switch.To.Name, err)
		}
	}
	if old := h.cur.Swap(next); old != nil {
		h.older = append(h.older, old)
		h.log.Info("embedder state followed", "gen", st.Gen, "live", st.Live.Name, "collection", st.Live.Collection,
			"writing_to_both", next.To != nil)
	}
	for t := range h.sides {
		if t != st.Live && (st.Switch == nil || (t != st.Switch.To && t != st.Switch.From)) {
			delete(h.sides, t)
		}
	}
	return nil
}

// acked is the generation this process follows: the current one, unless
// a request or job pinned to an older snapshot is still running.
func (h *Holder) acked() int64 {
	gen := h.cur.Load().State.Gen
	kept := h.older[:0]
	for _, s := range h.older {
		if s.pins.Load() > 0 {
			kept = append(kept, s)
			gen = min(gen, s.State.Gen)
		}
	}
	clear(h.older[len(kept):])
	h.older = kept
	return gen
}

// Start polls the state until Close.
func (h *Holder) Start() {
	h.started.Store(true)
	go func() {
		defer close(h.done)
		t := time.NewTicker(h.poll)
		defer t.Stop()
		for {
			select {
			case <-h.stop:
				return
			case <-t.C:
				ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
				if err := h.Refresh(ctx); err != nil {
					h.log.Warn("embedder state not read; following the last one read", "error", err)
				}
				cancel()
			}
		}
	}()
}

// Close stops polling and withdraws this process's acknowledgement, so a
// switch does not wait for it.
func (h *Holder) Close() { h.closing.Do(h.close) }

func (h *Holder) close() {
	close(h.stop)
	if h.started.Load() {
		select {
		case <-h.done:
		case <-time.After(10 * time.Second):
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	_ = h.records.Forget(ctx, h.replica)
}

type pinKey struct{}

// pin is a request's or job's hold on one snapshot, taken the first time
// it embeds, reads or writes: a request that only waits (a cancel, a
// wait for a job) never holds one, and so never keeps a switch waiting.
// Used after its release (work a request left running), it keeps the
// snapshot it had, or takes the current one, without counting.
type pin struct {
	h        *Holder
	mu       sync.Mutex
	snap     *Snapshot
	counted  bool
	released bool
}

func (p *pin) get() *Snapshot {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.snap == nil {
		if p.released {
			p.snap = p.h.cur.Load()
		} else {
			p.snap, p.counted = p.h.acquire(), true
		}
	}
	return p.snap
}

func (p *pin) release() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.released = true
	if p.counted {
		p.snap.pins.Add(-1)
		p.counted = false
	}
}

// Pin fixes ctx to the snapshot current when ctx first embeds, reads or
// writes, until release: everything done with it embeds and reads in one
// vector space, and writes where that snapshot writes, however the state
// moves meanwhile.
func (h *Holder) Pin(ctx context.Context) (context.Context, func()) {
	if _, ok := ctx.Value(pinKey{}).(*pin); ok {
		return ctx, func() {} // pinned already: one request's parts share it
	}
	p := &pin{h: h}
	ctx = ragd.WithVectorSpace(context.WithValue(ctx, pinKey{}, p), func() string { return p.get().Live.Target.Collection })
	return ctx, p.release
}

// acquire counts a pin on the current snapshot.
func (h *Holder) acquire() *Snapshot {
	for {
		s := h.cur.Load()
		s.pins.Add(1)
		// A refresh that swapped s out before the pin counted could have
		// found it unpinned and acknowledged past it: pin the new one.
		if h.cur.Load() == s {
			return s
		}
		s.pins.Add(-1)
	}
}

// snapshot is ctx's pinned snapshot, else the current one.
func (h *Holder) snapshot(ctx context.Context) *Snapshot {
	if p, ok := ctx.Value(pinKey{}).(*pin); ok {
		return p.get()
	}
	return h.cur.Load()
}
