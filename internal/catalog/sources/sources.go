// Package sources keeps ragd's sources in Redis: each source's record
// (ragd.Source, with the audience of who added it) under its own key, and
// the set of their ids. It checks nothing but the record's presence: the
// rules of what a source may be are package library's, its syncs the
// worker's.
package sources

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"ragd"
	"ragd/internal/platform/keyspace"
	"ragd/internal/platform/kv"
)

// Store reads and writes source records.
type Store struct {
	KV   *kv.Store
	Keys keyspace.Keys
}

// record is a source as stored: Viewer, which a source's answers never
// show, is kept beside it.
type record struct {
	ragd.Source
	Viewer *[]string `json:"viewer,omitempty"`
}

func decode(b []byte) (ragd.Source, error) {
	var r record
	if err := json.Unmarshal(b, &r); err != nil {
		return ragd.Source{}, fmt.Errorf("source record: %w", err)
	}
	r.Source.Viewer = r.Viewer
	return r.Source, nil
}

func encode(s ragd.Source) ([]byte, error) {
	return json.Marshal(record{Source: s, Viewer: s.Viewer})
}

// NewID is a new source id: "src_" and 16 hex digits.
func NewID() string {
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	return "src_" + hex.EncodeToString(b)
}

// ValidID reports whether id has NewID's form, so no other value names a
// key.
func ValidID(id string) bool {
	rest, ok := strings.CutPrefix(id, "src_")
	return ok && len(rest) == 16 && strings.Trim(rest, "0123456789abcdef") == ""
}

// Create records s, whose ID is new.
func (st *Store) Create(ctx context.Context, s ragd.Source) error {
	b, err := encode(s)
	if err != nil {
		return err
	}
	ok, err := st.KV.SetNew(ctx, st.Keys.Source(s.ID), b, 0)
	if err != nil {
		return err
	}
	if !ok {
		return ragd.Conflict("source %s exists", s.ID)
	}
	return st.KV.AddMembers(ctx, st.Keys.Sources(), 0, s.ID)
}

// Get returns the source id, ragd.NotFound when there is none.
func (st *Store) Get(ctx context.Context, id string) (ragd.Source, error) {
	if !ValidID(id) {
		return ragd.Source{}, ragd.NotFound("source %q not found", id)
	}
	b, ok, err := st.KV.Get(ctx, st.Keys.Source(id))
	if err != nil {
		return ragd.Source{}, err
	}
	if !ok {
		return ragd.Source{}, ragd.NotFound("source %q not found", id)
	}
	return decode(b)
}

// List returns every source, by id.
func (st *Store) List(ctx context.Context) ([]ragd.Source, error) {
	ids, err := st.KV.Members(ctx, st.Keys.Sources())
	if err != nil {
		return nil, err
	}
	slices.Sort(ids)
	out := make([]ragd.Source, 0, len(ids))
	for _, id := range ids {
		s, err := st.Get(ctx, id)
		if ragd.KindOf(err) == ragd.KindNotFound {
			continue // deleted meanwhile
		}
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}

// Update changes source id in one optimistic transaction: change gets
// the record as it is and edits it; an error from it writes nothing and
// is returned. The source as written is returned.
func (st *Store) Update(ctx context.Context, id string, change func(*ragd.Source) error) (ragd.Source, error) {
	var out ragd.Source
	if !ValidID(id) {
		return out, ragd.NotFound("source %q not found", id)
	}
	_, err := st.KV.Update(ctx, st.Keys.Source(id), 0, func(old []byte, found bool) ([]byte, error) {
		if !found {
			return nil, ragd.NotFound("source %q not found", id)
		}
		s, err := decode(old)
		if err != nil {
			return nil, err
		}
		if err := change(&s); err != nil {
			return nil, err
		}
		out = s
		return encode(s)
	})
	return out, err
}

// Delete forgets source id.
func (st *Store) Delete(ctx context.Context, id string) error {
	if err := st.KV.Delete(ctx, st.Keys.Source(id)); err != nil {
		return err
	}
	return st.KV.RemoveMembers(ctx, st.Keys.Sources(), id)
}
