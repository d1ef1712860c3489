// Package live holds which embedder and collection ragd serves from, and
// follows a switch to another one in every process at once. The state is
// one Redis record (State); each process polls it, builds the embedder
// and store it names (Holder), pins one snapshot per request or job so a
// query is embedded and searched in the same vector space (Pin), writes
// to both collections while a switch copies (Store), and acknowledges
// each generation once nothing of its older snapshots is in flight, which
// is what lets a switch start copying and, later, drop the old collection.
package live

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"ragd/internal/platform/keyspace"
	"ragd/internal/platform/kv"
)

// DefaultName is the name of the embedder configured under embed.
const DefaultName = "default"

// Target is one embedder and the collection holding its vectors (its
// pictures in Collection+"Image").
type Target struct {
	Name       string `json:"name"`
	Collection string `json:"collection"`
}

// Phase is where a switch is.
type Phase string

// The phases of a switch, in order. Until the cutover the old target
// stays live; while copying every process writes to both.
const (
	// PhaseCopying: processes write to both; the job re-embeds every
	// stored chunk into the new collection.
	PhaseCopying Phase = "copying"
	// PhaseDropping: the new target is live; once every process has
	// followed, the old collection is dropped.
	PhaseDropping Phase = "dropping"
	// PhaseCancelling: the old target stays live; once every process has
	// stopped writing to the new collection, it is dropped.
	PhaseCancelling Phase = "cancelling"
)

// Switch is a switch under way.
type Switch struct {
	JobID string `json:"job_id"`
	From  Target `json:"from"`
	To    Target `json:"to"`
	Phase Phase  `json:"phase"`
	// Done and Total count the chunks and pictures copied and to copy.
	Done  int `json:"done"`
	Total int `json:"total"`
	// Error is the embedder's last failure while the copy waits to retry
	// it; "" while it runs.
	Error string `json:"error,omitempty"`
	// Copied lists the namespaces copied whole; Namespace is the one being
	// copied, After the last chunk id written of it (Images when its
	// chunks are done and its pictures are being copied).
	Copied    []string `json:"copied,omitempty"`
	Namespace string   `json:"namespace,omitempty"`
	After     string   `json:"after,omitempty"`
	Images    bool     `json:"images,omitempty"`
}

// State is the live target and the switch under way. Gen moves with every
// change processes must follow (a phase, the live target); progress does
// not move it.
type State struct {
	Gen    int64   `json:"gen"`
	Live   Target  `json:"live"`
	Switch *Switch `json:"switch,omitempty"`
}

// Writes reports whether processes write to To as well as to Live.
func (s State) Writes() bool { return s.Switch != nil && s.Switch.Phase == PhaseCopying }

// Records reads and changes the state in Redis.
type Records struct {
	kv   *kv.Store
	keys keyspace.Keys
	// initial is the state before any was recorded: the default embedder
	// in weaviate.collection.
	initial State
}

// NewRecords returns the records under keys; before any switch the live
// target is the default embedder in collection.
func NewRecords(st *kv.Store, keys keyspace.Keys, collection string) *Records {
	return &Records{kv: st, keys: keys, initial: State{Live: Target{Name: DefaultName, Collection: collection}}}
}

// Load reads the state.
func (r *Records) Load(ctx context.Context) (State, error) {
	raw, ok, err := r.kv.Get(ctx, r.keys.Embedder())
	if err != nil {
		return State{}, fmt.Errorf("embedder state: %w", err)
	}
	return r.decode(raw, ok)
}

// decode is the state raw holds, the initial one when there was none.
func (r *Records) decode(raw []byte, ok bool) (State, error) {
	if !ok {
		return r.initial, nil
	}
	var s State
	if err := json.Unmarshal(raw, &s); err != nil {
		return State{}, fmt.Errorf("embedder state: %w", err)
	}
	return s, nil
}

// ErrChanged is returned by Update when change refused the state it read.
var ErrChanged = errors.New("embedder state changed")

// Update reads the state, lets change edit it and writes it back, in one
// optimistic transaction retried when another writer got there first.
// change returns an error to write nothing; bump moves Gen.
func (r *Records) Update(ctx context.Context, bump bool, change func(*State) error) (State, error) {
	var out State
	_, err := r.kv.Update(ctx, r.keys.Embedder(), 0, func(raw []byte, ok bool) ([]byte, error) {
		s, err := r.decode(raw, ok)
		if err != nil {
			return nil, err
		}
		if err := change(&s); err != nil {
			return nil, err
		}
		if bump {
			s.Gen++
		}
		out = s
		return json.Marshal(s)
	})
	if err != nil {
		return State{}, err
	}
	return out, nil
}

// MarkDirty records that something of namespace was deleted while a
// switch copies.
func (r *Records) MarkDirty(ctx context.Context, namespace string) error {
	return r.kv.AddMembers(ctx, r.keys.EmbedderDirty(), 0, namespace)
}

// TakeDirty returns and forgets the namespaces marked dirty.
func (r *Records) TakeDirty(ctx context.Context) ([]string, error) {
	ns, err := r.kv.TakeMembers(ctx, r.keys.EmbedderDirty())
	if err != nil {
		return nil, fmt.Errorf("embedder dirty namespaces: %w", err)
	}
	return ns, nil
}
