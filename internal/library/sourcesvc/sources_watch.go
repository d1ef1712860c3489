package sourcesvc

import (
	"context"
	"crypto/sha256"
	"encoding/hex"

	"ragd"
	"ragd/internal/authn"
	"ragd/internal/jobs/sourcesync"
	"ragd/internal/library"
	"ragd/internal/platform/config"
)

// The config's watch: entries are directory sources too: listed and
// synced (by the same directory sync their watchers run), never changed
// or deleted through /sources — the config is where they are kept.

// watchIDPrefix starts the id of a watch: entry as a source; no source
// id of sources.NewID's form (src_…) has it.
const watchIDPrefix = "watch_"

// watchID is the id of a watch: entry: stable across restarts and the
// order of the entries, as it follows the entry's kb_name and path.
func watchID(e config.WatchEntry) string {
	sum := sha256.Sum256([]byte(e.KBName + "\x00" + e.Path))
	return watchIDPrefix + hex.EncodeToString(sum[:8])
}

// watched is the watch: entry of id, if it is one.
func (s *Sources) watched(id string) (config.WatchEntry, bool) {
	for _, e := range s.Watch {
		if watchID(e) == id {
			return e, true
		}
	}
	return config.WatchEntry{}, false
}

// watchSource is a watch: entry as a source; false when its kb_name is
// no namespace (such an entry stops the server from starting anyway).
func watchSource(e config.WatchEntry) (ragd.Source, bool) {
	ns, err := ragd.ResolveNamespace(e.KBName)
	if err != nil {
		return ragd.Source{}, false
	}
	return ragd.Source{ID: watchID(e), Namespace: ns, Kind: ragd.SourceDirectory, URL: e.Path, Watch: true}, true
}

// watchSources are the watch: entries of the namespaces the caller may
// use (of kb alone when set).
func (s *Sources) watchSources(ctx context.Context, kb string) []ragd.Source {
	out := []ragd.Source{}
	p := authn.FromContext(ctx)
	for _, e := range s.Watch {
		if src, ok := watchSource(e); ok && p.Allows(src.Namespace) && (kb == "" || src.Namespace == kb) {
			out = append(out, src)
		}
	}
	return out
}

// readOnly refuses a change to a watch: entry.
func readOnly(src ragd.Source) error {
	if !src.Watch {
		return nil
	}
	return ragd.Conflict("source %s comes from the config's watch: (%s): change or remove it there", src.ID, src.URL)
}

// syncWatched runs a watch: entry's directory sync as rag_index_directory
// with sync: true does (and its watcher), as the caller; with DryRun
// answers its plan.
func (s *Sources) syncWatched(ctx context.Context, e config.WatchEntry, req SyncSourceRequest) (library.Enqueued, *SourcePlan, error) {
	if s.Directories == nil {
		return library.Enqueued{}, nil, ragd.Unavailable("directory syncs", nil)
	}
	recursive, prune := e.Recursive == nil || *e.Recursive, e.Prune == nil || *e.Prune
	dr := library.DirectoryRequest{DirectoryPath: e.Path, KBName: e.KBName, Recursive: &recursive, Sync: true, Prune: &prune}
	if !req.DryRun {
		enq, err := s.Directories.IndexDirectory(ctx, dr)
		return enq, nil, err
	}
	dp, err := s.Directories.PlanDirectory(ctx, dr)
	if err != nil {
		return library.Enqueued{}, nil, err
	}
	src, _ := watchSource(e)
	p := sourcesync.NewPlan(src, nil)
	p.Full, p.Added, p.Changed, p.Unchanged, p.Deleted = true, dp.Added, dp.Changed, dp.Unchanged, dp.Deleted
	return library.Enqueued{}, p, nil
}
