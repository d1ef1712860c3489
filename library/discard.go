package library

import (
	"context"

	"ragd"
	"ragd/registry"
)

// Discarder deletes the chunks and images of a document that belong to no
// current version: what a run or an import wrote before it failed for
// good. Searches already hide them, but they would stay in Weaviate and
// crowd the current versions out of each search's first page. Unlike the
// stale-version cleanup after a success, it also clears a document that
// has no current version. A failed ingest and a failed import both go
// through it.
type Discarder struct {
	Store    ragd.ChunkStore
	Registry *registry.Registry
}

// Discard deletes every version of the document but its current one, or
// all of it when it has none, and returns how many chunks went. When
// already names the current version, nothing is done: the caller's
// version was made current, and the others went when it was.
func (d Discarder) Discard(ctx context.Context, ns, id, already string) (int, error) {
	lease, err := d.Registry.Lock(ctx, ns, id, documentLockWait)
	if err != nil {
		return 0, err
	}
	defer lease.Release()
	doc, err := d.Registry.Get(ctx, ns, id)
	switch {
	case err != nil && ragd.KindOf(err) != ragd.KindNotFound:
		return 0, err
	case err == nil && already != "" && doc.ContentHash == already:
		return 0, nil
	}
	// Deleting without the lock could remove a version another job is
	// writing under it now.
	if err := lease.Held(ctx); err != nil {
		return 0, err
	}
	if doc == nil {
		return d.Store.DeleteDocument(ctx, ns, id)
	}
	return d.Store.DeleteStale(ctx, ns, id, doc.ContentHash)
}
