// Package sourcesync is the seam between a source's kind and the code
// that syncs it: each kind (git in package gitsync, web in websync, s3 in
// s3sync) is a Kind that checks a source's settings, plans a sync — what
// is added, changed, unchanged and deleted, read from the source with
// nothing deleted when it cannot be seen — stages each item to read as
// upload bytes, lists the source's documents and forgets what it keeps
// of a deleted source. The rules every kind shares have their one home
// here: a plan never deletes more than half of a source's documents
// without force (GuardDeletes), a sync that stops on purpose is a
// permanent conflict (Refused), a staged item is kept under the uploads
// directory by its sha256 (Keep), a source's documents are those under
// its source URI prefix that the sync's audience sees (Documents), and
// its include and exclude globs are .gitignore patterns from the root of
// what it reads, hidden paths left out (Globs, CheckGlobs; globs.go).
// Package library answers requests about sources through Kinds and
// package worker runs their syncs through it.
package sourcesync

import (
	"context"
	"fmt"

	"ragd"
	"ragd/internal/catalog/registry"
)

// Kind syncs the sources of one kind.
type Kind interface {
	// Check validates what a source of this kind says, new or changed
	// (URL, ref, globs, secrets named as env:VAR): ragd.Invalid or
	// ragd.Forbidden naming the field.
	Check(ctx context.Context, src ragd.Source) error
	// Plan reads the source and plans its sync. A source that cannot be
	// seen fails here, before anything is deleted; without force, so
	// does a plan that would delete more than half of its documents.
	Plan(ctx context.Context, src ragd.Source, force bool) (*Plan, error)
	// Stage keeps item (one of the plan's Added or Changed) where the
	// document pipeline reads uploads.
	Stage(ctx context.Context, p *Plan, item string) (File, error)
	// Documents is the source's documents that ctx's audience sees.
	Documents(ctx context.Context, src ragd.Source) ([]registry.SourceRef, error)
	// LocalPath is the local path the source reads ("" for none), which
	// the caller checks against the asker's own roots.
	LocalPath(src ragd.Source) string
	// Synced is told that the plan's items were handed to the pipeline,
	// so the kind keeps what its next plan compares with (validators,
	// ETags); the commit is recorded by the caller.
	Synced(ctx context.Context, p *Plan) error
	// Forget drops what the kind keeps of a deleted source (a clone, a
	// crawl's state).
	Forget(ctx context.Context, src ragd.Source) error
}

// Kinds are the kinds this ragd syncs.
type Kinds map[ragd.SourceKind]Kind

// For is the Kind of src, or ragd.Invalid when this ragd does not sync it.
func (k Kinds) For(kind ragd.SourceKind) (Kind, error) {
	if s, ok := k[kind]; ok {
		return s, nil
	}
	return nil, ragd.Invalid("kind", "value_error", "this ragd syncs no %s source", kind)
}

// Plan is what a sync does. Items are what the kind names within its
// source: a path for git, a page URL for web, a key for s3.
type Plan struct {
	Commit  string   `json:"commit,omitempty" jsonschema:"for git: the commit synced"`
	Full    bool     `json:"full" jsonschema:"true when every item was compared with the documents (a first sync, or a forced one); false when only the changes since the last sync were looked at"`
	Added   []string `json:"added" jsonschema:"items new since the last sync"`
	Changed []string `json:"changed" jsonschema:"items whose content changed since the last sync (or may have: they are read, and an unchanged content is not embedded again)"`
	// Moved are added items whose content is a gone item's: their
	// document takes over the gone one's chunks and vectors instead of
	// embedding them again, and the gone one is deleted once it has.
	Moved     []Move               `json:"moved" jsonschema:"of the added items, those whose content was deleted under another name (renames): indexed without embedding again, the old document deleted after"`
	Unchanged int                  `json:"unchanged" jsonschema:"items in scope not read: unchanged"`
	Deleted   []registry.SourceRef `json:"deleted" jsonschema:"documents whose item is gone"`
	// Failed are items the listing saw but could not read, with why:
	// their documents are kept.
	Failed map[string]string `json:"failed,omitempty" jsonschema:"items that could not be read, with why: their documents are kept"`

	// Src is the source planned.
	Src ragd.Source `json:"-"`
	// State is the kind's own: what Stage and Synced need.
	State any `json:"-"`
}

// NewPlan is an empty plan of src, its lists non-nil.
func NewPlan(src ragd.Source, state any) *Plan {
	return &Plan{Added: []string{}, Changed: []string{}, Moved: []Move{}, Deleted: []registry.SourceRef{}, Src: src, State: state}
}

// Move is an item whose content was under another name, whose document
// it takes over.
type Move struct {
	From registry.SourceRef `json:"from" jsonschema:"the document of the old name"`
	To   string             `json:"to" jsonschema:"the new item"`
}

// MovedFrom is the document item takes over, "" when it is not moved.
func (p *Plan) MovedFrom(item string) string {
	for _, m := range p.Moved {
		if m.To == item {
			return m.From.DocumentID
		}
	}
	return ""
}

// File is an item of a plan staged for the document pipeline.
type File struct {
	Item   string
	Upload string // sha256 of the bytes, their name under the uploads directory
	// Path, instead of Upload, is a file inside the ingest roots read in
	// place (the directory kind's): its document records the file's size
	// and time as a directory sync's does.
	Path     string
	Filename string // a name whose extension the loader follows
	Source   string // the document's source URI
	WebURL   string // the citation, "" when none can be derived
	// Type forces the document's source type when the name cannot say
	// (a web page's content type); "" to follow Filename.
	Type ragd.SourceType
}

// refusal is a sync that stopped on purpose: ragd.KindConflict, and
// permanent (a retry would stop again).
type refusal struct{ err *ragd.Error }

func (r refusal) Error() string { return r.err.Error() }

// Permanent reports that retrying cannot help.
func (refusal) Permanent() bool { return true }

func (r refusal) Unwrap() error { return r.err }

// Refused is a sync that stopped on purpose, saying why.
func Refused(format string, args ...any) error { return refusal{ragd.Conflict(format, args...)} }

// GuardDeletes stops a plan that would delete more than half of the
// source's documents (have), unless force.
func GuardDeletes(p *Plan, have int, force bool) error {
	if force || len(p.Deleted) == 0 || 2*len(p.Deleted) <= have {
		return nil
	}
	return Refused("this sync would delete %d of the source's %d documents, more than half: it stopped and deleted nothing; "+
		"sync with force if they are really gone", len(p.Deleted), have)
}

// Documents is the documents under prefix (a source URI prefix) of the
// source's namespace that ctx's audience sees (the registry applies it).
func Documents(ctx context.Context, reg *registry.Registry, src ragd.Source, prefix string) ([]registry.SourceRef, error) {
	refs, err := reg.BySourcePrefix(ctx, src.Namespace, prefix)
	if err != nil {
		return nil, ragd.Unavailable("redis", err)
	}
	return refs, nil
}

// Known is the documents, among those of sources (source URIs), that
// the registry has and ctx's audience sees (the registry applies it).
func Known(ctx context.Context, reg *registry.Registry, namespace string, sources []string) ([]registry.SourceRef, error) {
	out := []registry.SourceRef{}
	if len(sources) == 0 {
		return out, nil
	}
	ids := make([]string, len(sources))
	for i, s := range sources {
		ids[i] = ragd.DocumentID(namespace, s)
	}
	docs, err := reg.GetMany(ctx, namespace, ids)
	if err != nil {
		return nil, ragd.Unavailable("redis", err)
	}
	for _, id := range ids {
		if d, ok := docs[id]; ok {
			out = append(out, registry.SourceRef{DocumentID: id, Source: d.Source})
		}
	}
	return out, nil
}

// ErrNotPlanned is Stage's error for an item not in the plan.
func ErrNotPlanned(item string) error { return fmt.Errorf("%s is not in the plan", item) }
