// Package syncplan plans a directory sync: which of a directory's files
// are new or changed since they were indexed, how many are unchanged, and
// which documents lost their file. A dry run answers with the plan
// (package library) and the directory job carries it out (package
// worker), so both compute it here.
package syncplan

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"slices"
	"strings"

	"ragd"
	"ragd/internal/catalog/registry"
	"ragd/internal/ingest"
	"ragd/internal/ingest/guard"
)

// Plan is what a directory sync does: the files it indexes (new and
// changed), how many it skips unread, and the documents whose file is
// gone, which it deletes unless prune is off. A dry run answers with it;
// the sync job computes the same plan when it runs.
type Plan struct {
	Added     []string             `json:"added" jsonschema:"files not indexed yet"`
	Changed   []string             `json:"changed" jsonschema:"files whose size or modification time changed since they were indexed"`
	Unchanged int                  `json:"unchanged" jsonschema:"files skipped unread: size and modification time as recorded"`
	Deleted   []registry.SourceRef `json:"deleted" jsonschema:"documents whose file under the directory is gone (empty with prune false)"`
}

// Scope is the directory a sync covers.
type Scope struct {
	Namespace string
	Dir       string // resolved, inside the roots
	Recursive bool
	Prune     bool
	MaxFiles  int
	// IncludeIgnored walks what the ignore rules skip (ingest.Skipper).
	IncludeIgnored bool
	// Access, when set, is every file's: a file whose document has
	// another is changed, however unchanged its bytes.
	Access *[]string
	// Take, when set, leaves out the files it refuses (their path from
	// Dir, slash-separated): a directory source's include and exclude
	// globs. A document of a file left out is not deleted: its file is
	// there.
	Take func(rel string) bool
}

// Make compares the directory's supported files with the namespace's
// documents. Files are only stat'ed: one whose size and modification time
// match its document's record is unchanged and never read, unless the
// document has no chunks (an earlier ragd's, see below); the others are
// read and hashed by their jobs (a touched but unchanged file then only
// has its time recorded). A document ctx's audience (the principal that
// asked) may not see is none of the sync's business: never listed,
// counted, re-indexed or deleted. The registry applies the audience
// (GetMany and BySourcePrefix leave such documents out); a file whose
// document it hides (HiddenIDs) is left out rather than added.
func Make(ctx context.Context, reg *registry.Registry, roots *guard.Roots, sc Scope) (Plan, error) {
	plan := Plan{Added: []string{}, Changed: []string{}, Deleted: []registry.SourceRef{}}
	files, err := ingest.WalkFilesWith(sc.Dir, roots, ingest.WalkOptions{Recursive: sc.Recursive,
		IncludeIgnored: sc.IncludeIgnored, MaxFiles: sc.MaxFiles, Take: sc.Take})
	if err != nil {
		return plan, err
	}
	ids := make([]string, len(files))
	for i, f := range files {
		ids[i] = ragd.DocumentID(sc.Namespace, ragd.FileURI(f))
	}
	docs, err := reg.GetMany(ctx, sc.Namespace, ids)
	if err != nil {
		return plan, ragd.Unavailable("redis", err)
	}
	hidden, err := reg.HiddenIDs(ctx, sc.Namespace)
	if err != nil {
		return plan, ragd.Unavailable("redis", err)
	}
	walked := make(map[string]bool, len(files))
	for i, f := range files {
		walked[ragd.FileURI(f)] = true
		d, known := docs[ids[i]]
		switch fi, err := os.Stat(f); {
		case !known && hidden[ids[i]]:
			// Another audience's document: left out of the plan.
		case !known:
			plan.Added = append(plan.Added, f)
		case d.Chunks == 0:
			// Stored without chunks by an earlier ragd (a file of headings
			// only): unsearchable, and its export would not import. Read
			// again, it gets its chunk.
			plan.Changed = append(plan.Changed, f)
		case err == nil && d.FileModTime != nil && d.FileSize == fi.Size() && d.FileModTime.Equal(fi.ModTime()) &&
			(sc.Access == nil || slices.Equal(*sc.Access, d.Access)):
			plan.Unchanged++
		default:
			plan.Changed = append(plan.Changed, f)
		}
	}
	if !sc.Prune {
		return plan, nil
	}
	plan.Deleted, err = gone(ctx, reg, sc, walked)
	return plan, err
}

// gone lists the documents under the directory whose file no longer
// exists, of those the sync's audience sees (BySourcePrefix applies it).
// A document whose file exists but was not walked (a hidden or ignored
// file, a subdirectory of a non-recursive sync) is not this sync's to
// delete: it was indexed on purpose (by name, or with include_ignored),
// and deleting it would undo that at every sync.
func gone(ctx context.Context, reg *registry.Registry, sc Scope, walked map[string]bool) ([]registry.SourceRef, error) {
	prefix := strings.TrimSuffix(sc.Dir, "/") + "/"
	refs, err := reg.BySourcePrefix(ctx, sc.Namespace, ragd.FileURI(prefix))
	if err != nil {
		return nil, ragd.Unavailable("redis", err)
	}
	out := []registry.SourceRef{}
	for _, r := range refs {
		path, _ := ragd.URIFilePath(r.Source)
		if walked[r.Source] || (!sc.Recursive && strings.Contains(strings.TrimPrefix(path, prefix), "/")) {
			continue
		}
		if _, err := os.Lstat(path); !errors.Is(err, fs.ErrNotExist) {
			continue // there (or unreadable): not provably gone
		}
		out = append(out, r)
	}
	return out, nil
}
