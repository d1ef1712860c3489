// Package gitsync plans and stages the sync of a git source: the source's
// bare clone under data.dir brought up to date with go-git (fetch.go), its
// URL's checks (remote.go), the paths in scope — supported files, the
// source's include and exclude globs, the repository's .gitignore files
// (scope.go) — and the plan, by tree diff from the last synced commit
// (plan.go): only the blobs of added and changed paths are read, each
// staged as upload bytes the document pipeline reads (stage.go). A plan
// that cannot see the repository, or that lost the last synced commit,
// fails before anything is deleted.
package gitsync

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"

	"ragd"
	"ragd/internal/catalog/registry"
	"ragd/internal/ingest/guard"
)

// Syncer plans git sources' syncs.
type Syncer struct {
	Dir        string // <data.dir>/sources: the clones
	UploadsDir string // <data.dir>/uploads: staged blobs
	Roots      *guard.Roots
	Fetcher    *guard.Fetcher // the address check (ingest.allow_private_urls)
	Registry   *registry.Registry
	// MaxRepoBytes bounds a clone on disk (sources.git_max_repo_bytes),
	// MaxFiles the files in scope (sources.git_max_files), MaxFileBytes a
	// staged blob (ingest.max_file_bytes).
	MaxRepoBytes int64
	MaxFiles     int
	MaxFileBytes int64
	// WebURL is the citation template (sources.git_web_url).
	WebURL string
	// Timeout bounds one fetch (sources.git_timeout).
	Timeout time.Duration

	// Reads counts the blobs staged: a sync reads only what changed.
	Reads atomic.Int64
}

// Plan is what a git sync does.
type Plan struct {
	Commit    string               `json:"commit" jsonschema:"the commit synced"`
	Full      bool                 `json:"full" jsonschema:"true when every file was compared with the documents (a first sync, or a forced one); false for a tree diff from the last synced commit"`
	Added     []string             `json:"added" jsonschema:"paths new since the last sync"`
	Changed   []string             `json:"changed" jsonschema:"paths whose content changed since the last sync"`
	Renamed   int                  `json:"renamed" jsonschema:"of the added paths, those whose content was deleted under another path"`
	Unchanged int                  `json:"unchanged" jsonschema:"paths in scope not read: unchanged"`
	Deleted   []registry.SourceRef `json:"deleted" jsonschema:"documents whose path is gone"`

	src   ragd.Source
	repo  fetched
	blobs map[string]plumbing.Hash
}

// Source is the source the plan is of.
func (p *Plan) Source() ragd.Source { return p.src }

// Plan fetches the source and plans its sync. Without force it fails,
// deleting nothing, when the last synced commit is no longer in the ref's
// history (a force push) or when it would delete more than half of the
// source's documents.
func (s *Syncer) Plan(ctx context.Context, src ragd.Source, force bool) (*Plan, error) {
	f, err := s.fetch(ctx, src)
	if err != nil {
		return nil, err
	}
	head, err := f.repo.CommitObject(f.commit)
	if err != nil {
		return nil, ragd.Invalid("ref", "value_error", "ref %s names no commit", src.Ref)
	}
	tree, err := head.Tree()
	if err != nil {
		return nil, fmt.Errorf("git %s: tree of %s: %w", src.URL, f.commit, err)
	}
	sc, err := s.scope(src, tree)
	if err != nil {
		return nil, err
	}
	p := &Plan{Commit: f.commit.String(), Added: []string{}, Changed: []string{}, Deleted: []registry.SourceRef{},
		src: src, repo: f, blobs: sc.files}
	old, err := s.lastTree(src, f, head, force)
	if err != nil {
		return nil, err
	}
	if old == nil {
		err = s.planFull(ctx, p)
	} else {
		err = s.planDiff(ctx, p, old, tree, sc)
	}
	if err != nil {
		return nil, err
	}
	return p, s.guardDeletes(ctx, p, force)
}

// lastTree is the tree of the last synced commit, nil for a full plan
// (none synced yet, or force). A last commit no longer in the ref's
// history fails the plan unless force.
func (s *Syncer) lastTree(src ragd.Source, f fetched, head *object.Commit, force bool) (*object.Tree, error) {
	if src.Commit == "" || force {
		return nil, nil
	}
	last, err := f.repo.CommitObject(plumbing.NewHash(src.Commit))
	if err == nil && last.Hash != head.Hash {
		var ok bool
		if ok, err = last.IsAncestor(head); err == nil && !ok {
			err = fmt.Errorf("not an ancestor")
		}
	}
	if err != nil {
		return nil, refused("the ref %s no longer holds the last synced commit %s (was it force-pushed?): the sync stopped and deleted nothing; "+
			"sync with force to compare every file with the documents", refName(src), src.Commit)
	}
	return last.Tree()
}

func refName(src ragd.Source) string {
	if src.Ref == "" {
		return "(default branch)"
	}
	return src.Ref
}

// planDiff plans from the changes between the last synced tree and the
// new one: only changed paths are looked at.
func (s *Syncer) planDiff(ctx context.Context, p *Plan, old, tree *object.Tree, sc scope) error {
	changes, err := object.DiffTreeWithOptions(ctx, old, tree, nil)
	if err != nil {
		return fmt.Errorf("git diff: %w", err)
	}
	var gone []string
	goneBlobs := map[plumbing.Hash]bool{}
	for _, c := range changes {
		from, to := c.From.Name, c.To.Name
		_, inNew := sc.files[to]
		switch {
		case from == "" && inNew:
			p.Added = append(p.Added, to)
		case from != "" && to == "":
			gone = append(gone, from)
			goneBlobs[c.From.TreeEntry.Hash] = true
		case inNew:
			p.Changed = append(p.Changed, to)
		}
	}
	for _, a := range p.Added {
		if goneBlobs[sc.files[a]] {
			p.Renamed++
		}
	}
	p.Unchanged = len(sc.files) - len(p.Added) - len(p.Changed)
	p.Deleted, err = s.known(ctx, p.src, gone)
	return err
}

// planFull compares every path in scope with the source's documents:
// those with a document are read again (the pipeline skips an unchanged
// content), documents whose path is gone are deleted.
func (s *Syncer) planFull(ctx context.Context, p *Plan) error {
	p.Full = true
	refs, err := s.Documents(ctx, p.src)
	if err != nil {
		return err
	}
	have := map[string]bool{}
	for _, r := range refs {
		path, _ := ragd.GitURIPath(r.Source)
		if _, ok := p.blobs[path]; ok {
			have[path] = true
		} else {
			p.Deleted = append(p.Deleted, r)
		}
	}
	for path := range p.blobs {
		if have[path] {
			p.Changed = append(p.Changed, path)
		} else {
			p.Added = append(p.Added, path)
		}
	}
	sortStrings(p.Added, p.Changed)
	return nil
}

// known is the documents of paths that the registry has and the sync's
// audience sees.
func (s *Syncer) known(ctx context.Context, src ragd.Source, paths []string) ([]registry.SourceRef, error) {
	out := []registry.SourceRef{}
	if len(paths) == 0 {
		return out, nil
	}
	ids := make([]string, len(paths))
	for i, p := range paths {
		ids[i] = ragd.DocumentID(src.Namespace, ragd.GitURI(src.URL, src.Ref, p))
	}
	docs, err := s.Registry.GetMany(ctx, src.Namespace, ids)
	if err != nil {
		return nil, ragd.Unavailable("redis", err)
	}
	aud := ragd.AudienceIn(ctx)
	for _, id := range ids {
		if d, ok := docs[id]; ok && aud.Sees(d.Access) {
			out = append(out, registry.SourceRef{DocumentID: id, Source: d.Source})
		}
	}
	return out, nil
}

// Documents is the source's documents that ctx's audience sees.
func (s *Syncer) Documents(ctx context.Context, src ragd.Source) ([]registry.SourceRef, error) {
	refs, err := s.Registry.BySourcePrefix(ctx, src.Namespace, ragd.GitURIPrefix(src.URL, src.Ref))
	if err != nil {
		return nil, ragd.Unavailable("redis", err)
	}
	hidden, err := s.Registry.HiddenIDs(ctx, src.Namespace)
	if err != nil {
		return nil, ragd.Unavailable("redis", err)
	}
	out := refs[:0]
	for _, r := range refs {
		if !hidden[r.DocumentID] {
			out = append(out, r)
		}
	}
	return out, nil
}

// guardDeletes stops a sync that would delete more than half of the
// source's documents, unless force.
func (s *Syncer) guardDeletes(ctx context.Context, p *Plan, force bool) error {
	if force || len(p.Deleted) == 0 {
		return nil
	}
	refs, err := s.Documents(ctx, p.src)
	if err != nil {
		return err
	}
	if 2*len(p.Deleted) > len(refs) {
		return refused("this sync would delete %d of the source's %d documents, more than half: it stopped and deleted nothing; "+
			"sync with force if the files are really gone", len(p.Deleted), len(refs))
	}
	return nil
}

// refusal is a sync that stopped on purpose: ragd.KindConflict, and
// permanent (a retry would stop again).
type refusal struct{ err *ragd.Error }

func (r refusal) Error() string { return r.err.Error() }

// Permanent reports that retrying cannot help.
func (refusal) Permanent() bool { return true }

func (r refusal) Unwrap() error { return r.err }

func refused(format string, args ...any) error { return refusal{ragd.Conflict(format, args...)} }
