// Package dirsync is the directory kind of source: a directory inside
// the ingest roots kept in sync with a namespace by the directory sync
// that rag_index_directory (sync: true, prune: true, recursive) and the
// watch: entries run. Its plan is package syncplan's — files skipped
// unread when their size and modification time are as recorded, the
// documents of gone files deleted — narrowed by the source's include and
// exclude globs and stopped, unless forced, when it would delete more
// than half of the source's documents. Its files are read in place
// (File.Path) under their file:// source URIs, so a directory indexed
// by rag_index_directory keeps its documents when it becomes a source.
package dirsync

import (
	"context"
	"os"
	"path/filepath"
	"strings"

	"ragd"
	"ragd/internal/catalog/registry"
	"ragd/internal/ingest/guard"
	"ragd/internal/jobs/sourcesync"
	"ragd/internal/jobs/syncplan"
)

// Syncer syncs directory sources.
type Syncer struct {
	Registry *registry.Registry
	// Roots are the ingest roots a directory must be inside.
	Roots *guard.Roots
	// MaxFiles bounds the files a sync lists (ingest.max_directory_files).
	MaxFiles int
}

var _ sourcesync.Kind = (*Syncer)(nil)

// Path is the directory a directory source's URL names: an absolute path
// or a file:///absolute/path URL, cleaned; ok is false for another form.
func Path(u string) (string, bool) {
	if src, err := ragd.ParseSourceURI(u); err == nil && src.Scheme == ragd.SchemeFile {
		p, ok := src.FileURLPath()
		if !ok {
			return "", false
		}
		u = p
	}
	if !filepath.IsAbs(u) {
		return "", false
	}
	return filepath.Clean(u), true
}

// Check validates a directory source: its URL names a directory inside
// the ingest roots (403 outside them), its globs are well formed, and it
// says nothing of the other kinds (a ref, keys, crawl bounds).
func (s *Syncer) Check(_ context.Context, src ragd.Source) error {
	p, ok := Path(src.URL)
	if !ok {
		return ragd.Invalid("url", "value_error", "a directory source's url is an absolute path or a file:///absolute/path URL, not %q", src.URL)
	}
	if err := sourcesync.CheckGlobs("include", src.Include); err != nil {
		return err
	}
	if err := sourcesync.CheckGlobs("exclude", src.Exclude); err != nil {
		return err
	}
	for field, set := range map[string]bool{"ref": src.Ref != "", "ssh_key": src.SSHKey != "", "endpoint": src.Endpoint != "",
		"region": src.Region != "", "access_key": src.AccessKey != "", "secret_key": src.SecretKey != "",
		"max_pages": src.MaxPages != 0, "max_depth": src.MaxDepth != 0} {
		if set {
			return ragd.Invalid(field, "value_error", "a directory source has no %s", field)
		}
	}
	_, err := s.dir(p)
	return err
}

// dir resolves p inside the roots and checks it is a directory.
func (s *Syncer) dir(p string) (string, error) {
	dir, err := s.Roots.Resolve(p)
	if err != nil {
		return "", err // library relabels file_path as url
	}
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return "", ragd.Invalid("url", "value_error", "%s is not a directory", p)
	}
	return dir, nil
}

// LocalPath is the directory the source reads, which the caller checks
// against the asker's own roots.
func (s *Syncer) LocalPath(src ragd.Source) string {
	p, _ := Path(src.URL)
	return p
}

// Scope is the directory sync a source runs: recursive, pruning, its
// access every file's (none: everyone's), its globs narrowing the walk.
func (s *Syncer) Scope(src ragd.Source) (syncplan.Scope, error) {
	p, ok := Path(src.URL)
	if !ok {
		return syncplan.Scope{}, ragd.Invalid("url", "value_error", "a directory source's url is an absolute path, not %q", src.URL)
	}
	dir, err := s.dir(p)
	if err != nil {
		return syncplan.Scope{}, err
	}
	access := src.Access
	if access == nil {
		access = []string{}
	}
	globs := sourcesync.NewGlobs(src.Include, src.Exclude)
	return syncplan.Scope{Namespace: src.Namespace, Dir: dir, Recursive: true, Prune: true, MaxFiles: s.MaxFiles,
		Access: &access, Take: globs.Take}, nil
}

// Plan plans the source's directory sync (syncplan.Make, every file
// compared with its document by size and modification time). A
// directory that cannot be walked fails here, before anything is
// deleted; without force, so does a plan deleting more than half of the
// source's documents.
func (s *Syncer) Plan(ctx context.Context, src ragd.Source, force bool) (*sourcesync.Plan, error) {
	sc, err := s.Scope(src)
	if err != nil {
		return nil, err
	}
	dp, err := syncplan.Make(ctx, s.Registry, s.Roots, sc)
	if err != nil {
		return nil, err
	}
	planned := make(map[string]bool, len(dp.Added)+len(dp.Changed))
	for _, f := range append(append([]string{}, dp.Added...), dp.Changed...) {
		planned[f] = true
	}
	p := sourcesync.NewPlan(src, planned)
	p.Full, p.Added, p.Changed, p.Unchanged, p.Deleted = true, dp.Added, dp.Changed, dp.Unchanged, dp.Deleted
	if len(p.Deleted) > 0 {
		have, err := sourcesync.Documents(ctx, s.Registry, src, prefix(sc.Dir))
		if err != nil {
			return nil, err
		}
		if err := sourcesync.GuardDeletes(p, len(have), force); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// prefix is the source URI prefix of the files under dir.
func prefix(dir string) string { return ragd.FileURI(strings.TrimSuffix(dir, "/") + "/") }

// Stage hands the file over as it is: read in place by its document job.
func (s *Syncer) Stage(_ context.Context, p *sourcesync.Plan, item string) (sourcesync.File, error) {
	if planned, _ := p.State.(map[string]bool); !planned[item] {
		return sourcesync.File{}, sourcesync.ErrNotPlanned(item)
	}
	return sourcesync.File{Item: item, Path: item, Filename: filepath.Base(item), Source: ragd.FileURI(item)}, nil
}

// Documents is the documents of the files under the source's directory
// that ctx's audience sees.
func (s *Syncer) Documents(ctx context.Context, src ragd.Source) ([]registry.SourceRef, error) {
	p, ok := Path(src.URL)
	if !ok {
		return []registry.SourceRef{}, nil
	}
	if dir, err := s.Roots.Resolve(p); err == nil {
		p = dir
	}
	return sourcesync.Documents(ctx, s.Registry, src, prefix(p))
}

// Synced keeps nothing: each file's size and time are on its document.
func (s *Syncer) Synced(context.Context, *sourcesync.Plan) error { return nil }

// Forget keeps nothing to forget.
func (s *Syncer) Forget(context.Context, ragd.Source) error { return nil }
