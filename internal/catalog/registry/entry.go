package registry

import (
	"bytes"
	"encoding/json"
	"fmt"
	"time"

	"ragd"
)

// entry is a document as the registry keeps it (a field of the
// namespace's documents hash, keyed by its id): ragd.Document without
// what the key already says (id, namespace), with short names and times
// as unix nanoseconds, so that a registry entry takes about two thirds of
// what the document's JSON does. A document an earlier ragd wrote (ragd.Document's
// JSON, which always starts with its id) is read as well; it is rewritten
// in this form at its next change.
type entry struct {
	Source      string          `json:"s"`
	SourceType  ragd.SourceType `json:"t,omitempty"`
	ContentHash string          `json:"h"`
	RawHash     string          `json:"r,omitempty"`
	Title       string          `json:"ti,omitempty"`
	Tags        []string        `json:"g,omitempty"`
	Access      []string        `json:"a,omitempty"`
	Chunks      int             `json:"n"`
	CreatedAt   int64           `json:"c,omitempty"`
	// UpdatedAt is 0 when it equals CreatedAt.
	UpdatedAt   int64  `json:"u,omitempty"`
	FileSize    int64  `json:"fs,omitempty"`
	FileModTime *int64 `json:"fm,omitempty"`
	// WebURL and Commit are a git source's file's (ragd.Document's).
	WebURL string `json:"w,omitempty"`
	Commit string `json:"k,omitempty"`
}

// olderForm opens a document as an earlier ragd wrote it.
var olderForm = []byte(`{"document_id"`)

// encode is d as the registry keeps it.
func encode(d ragd.Document) ([]byte, error) {
	e := entry{Source: d.Source, SourceType: d.SourceType, ContentHash: d.ContentHash, RawHash: d.RawHash,
		Title: d.Title, Tags: d.Tags, Access: d.Access, Chunks: d.Chunks, CreatedAt: unixNano(d.CreatedAt), FileSize: d.FileSize,
		WebURL: d.WebURL, Commit: d.Commit}
	if !d.UpdatedAt.Equal(d.CreatedAt) {
		e.UpdatedAt = unixNano(d.UpdatedAt)
	}
	if d.FileModTime != nil {
		t := unixNano(*d.FileModTime)
		e.FileModTime = &t
	}
	return json.Marshal(e)
}

// decode reads document id of namespace from what the registry keeps.
func decode(namespace, id string, raw []byte) (ragd.Document, error) {
	if bytes.HasPrefix(raw, olderForm) {
		var d ragd.Document
		if err := json.Unmarshal(raw, &d); err != nil {
			return ragd.Document{}, fmt.Errorf("registry: document %s: %w", id, err)
		}
		return d, nil
	}
	var e entry
	if err := json.Unmarshal(raw, &e); err != nil {
		return ragd.Document{}, fmt.Errorf("registry: document %s: %w", id, err)
	}
	d := ragd.Document{ID: id, Namespace: namespace, Source: e.Source, SourceType: e.SourceType, ContentHash: e.ContentHash,
		RawHash: e.RawHash, Title: e.Title, Tags: e.Tags, Access: e.Access, Chunks: e.Chunks,
		CreatedAt: fromUnixNano(e.CreatedAt), UpdatedAt: fromUnixNano(e.UpdatedAt), FileSize: e.FileSize,
		WebURL: e.WebURL, Commit: e.Commit}
	if e.UpdatedAt == 0 {
		d.UpdatedAt = d.CreatedAt
	}
	if e.FileModTime != nil {
		t := fromUnixNano(*e.FileModTime)
		d.FileModTime = &t
	}
	return d, nil
}

// sourceOf reads only a kept document's source, in either form: decoding
// whole documents costs a third more.
func sourceOf(raw []byte) (string, error) {
	var d struct {
		Older string `json:"source"`
		Ours  string `json:"s"`
	}
	if err := json.Unmarshal(raw, &d); err != nil {
		return "", err
	}
	if bytes.HasPrefix(raw, olderForm) {
		return d.Older, nil
	}
	return d.Ours, nil
}

// unixNano is t in unix nanoseconds, 0 for the zero time.
func unixNano(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixNano()
}

func fromUnixNano(n int64) time.Time {
	if n == 0 {
		return time.Time{}
	}
	return time.Unix(0, n).UTC()
}
