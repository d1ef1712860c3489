// Package gitsync plans and stages the sync of a git source: the source's
// bare clone under data.dir brought up to date with go-git (fetch.go), its
// URL's checks (remote.go), the paths in scope — supported files, the
// source's include and exclude globs, the repository's .gitignore files
// (scope.go) — and the plan, by tree diff from the last synced commit
// (plan.go): only the blobs of added and changed paths are read, each
// staged as upload bytes the document pipeline reads (stage.go). A plan
// that cannot see the repository, or that lost the last synced commit,
// fails before anything is deleted. Syncer is the git sourcesync.Kind
// (kind.go).
package gitsync

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"

	"ragd"
	"ragd/internal/catalog/registry"
	"ragd/internal/ingest/guard"
	"ragd/internal/jobs/sourcesync"
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
	// CAFile holds the certificate authorities https remotes are also
	// trusted from (sources.git_ca_file), read at each fetch.
	CAFile string

	// Reads counts the blobs staged: a sync reads only what changed.
	Reads atomic.Int64

	clones sync.Map // source id → *sync.Mutex held while its clone is fetched into

}

// planState is a git plan's own: the fetched repository and the blobs
// of the paths in scope.
type planState struct {
	repo  fetched
	blobs map[string]plumbing.Hash
}

func stateOf(p *sourcesync.Plan) planState { st, _ := p.State.(planState); return st }

// Plan fetches the source and plans its sync. Without force it fails,
// deleting nothing, when the last synced commit is no longer in the ref's
// history (a force push) or when it would delete more than half of the
// source's documents.
func (s *Syncer) Plan(ctx context.Context, src ragd.Source, force bool) (*sourcesync.Plan, error) {
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
	p := sourcesync.NewPlan(src, planState{repo: f, blobs: sc.files})
	p.Commit = f.commit.String()
	old, err := s.lastTree(src, f, head, force)
	if err != nil {
		return nil, err
	}
	if old == nil {
		err = s.planFull(ctx, p, sc)
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
		return nil, sourcesync.Refused("the ref %s no longer holds the last synced commit %s (was it force-pushed?): the sync stopped and deleted nothing; "+
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
// new one: only changed paths are looked at. An added path whose blob a
// gone path had is a move: its document takes over the gone one's.
func (s *Syncer) planDiff(ctx context.Context, p *sourcesync.Plan, old, tree *object.Tree, sc scope) error {
	changes, err := object.DiffTreeWithOptions(ctx, old, tree, nil)
	if err != nil {
		return fmt.Errorf("git diff: %w", err)
	}
	var gone []string
	goneBlobs := map[plumbing.Hash][]string{}
	for _, c := range changes {
		from, to := c.From.Name, c.To.Name
		_, inNew := sc.files[to]
		switch {
		case from == "" && inNew:
			p.Added = append(p.Added, to)
		case from != "" && to == "":
			gone = append(gone, from)
			goneBlobs[c.From.TreeEntry.Hash] = append(goneBlobs[c.From.TreeEntry.Hash], from)
		case inNew:
			p.Changed = append(p.Changed, to)
		}
	}
	p.Unchanged = len(sc.files) - len(p.Added) - len(p.Changed)
	uris := make([]string, len(gone))
	for i, g := range gone {
		uris[i] = ragd.GitURI(p.Src.URL, p.Src.Ref, g)
	}
	p.Deleted, err = sourcesync.Known(ctx, s.Registry, p.Src.Namespace, uris)
	if err != nil {
		return err
	}
	s.pairMoves(p, goneBlobs, sc)
	return nil
}

// pairMoves makes each added path whose blob a gone path with a document
// had a move of that document, which is then not deleted.
func (s *Syncer) pairMoves(p *sourcesync.Plan, goneBlobs map[plumbing.Hash][]string, sc scope) {
	docs := map[string]registry.SourceRef{}
	for _, d := range p.Deleted {
		if path, ok := ragd.GitURIPath(d.Source); ok {
			docs[path] = d
		}
	}
	for _, a := range p.Added {
		for paths := goneBlobs[sc.files[a]]; len(paths) > 0; paths = paths[1:] {
			goneBlobs[sc.files[a]] = paths[1:]
			if d, ok := docs[paths[0]]; ok {
				p.Moved = append(p.Moved, sourcesync.Move{From: d, To: a})
				delete(docs, paths[0])
				break
			}
		}
	}
	kept := p.Deleted[:0]
	for _, d := range p.Deleted {
		if path, _ := ragd.GitURIPath(d.Source); docs[path] == d {
			kept = append(kept, d)
		}
	}
	p.Deleted = kept
}

// planFull compares every path in scope with the source's documents:
// those with a document are read again (the pipeline skips an unchanged
// content), documents whose path is gone are deleted.
func (s *Syncer) planFull(ctx context.Context, p *sourcesync.Plan, sc scope) error {
	p.Full = true
	refs, err := s.Documents(ctx, p.Src)
	if err != nil {
		return err
	}
	have := map[string]bool{}
	for _, r := range refs {
		path, _ := ragd.GitURIPath(r.Source)
		if _, ok := sc.files[path]; ok {
			have[path] = true
		} else {
			p.Deleted = append(p.Deleted, r)
		}
	}
	for path := range sc.files {
		if have[path] {
			p.Changed = append(p.Changed, path)
		} else {
			p.Added = append(p.Added, path)
		}
	}
	sortStrings(p.Added, p.Changed)
	return nil
}

// Documents is the source's documents that ctx's audience sees.
func (s *Syncer) Documents(ctx context.Context, src ragd.Source) ([]registry.SourceRef, error) {
	return sourcesync.Documents(ctx, s.Registry, src, ragd.GitURIPrefix(src.URL, src.Ref))
}

// guardDeletes stops a sync that would delete more than half of the
// source's documents, unless force.
func (s *Syncer) guardDeletes(ctx context.Context, p *sourcesync.Plan, force bool) error {
	if force || len(p.Deleted) == 0 {
		return nil
	}
	refs, err := s.Documents(ctx, p.Src)
	if err != nil {
		return err
	}
	return sourcesync.GuardDeletes(p, len(refs), force)
}
