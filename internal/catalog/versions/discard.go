package versions

import (
	"context"

	"ragd"
)

// Discard deletes the chunks and images of a document that belong to no
// current version — what a run or an import wrote before it failed for
// good or was cancelled — and returns how many chunks went. Searches hide
// them already, but they would stay in Weaviate and crowd the current
// versions out of each search's first page. Unlike the cleanup after a
// Commit, it also clears a document that has no current version. When
// already names the current version, nothing is done: the caller's
// version was made current, and the others went when it was.
func (k *Keeper) Discard(ctx context.Context, ns, id, already string) (int, error) {
	lease, err := k.Lock(ctx, ns, id)
	if err != nil {
		return 0, err
	}
	defer lease.Release()
	doc, err := k.Registry.GetAny(ctx, ns, id)
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
		return k.Store.DeleteDocument(ctx, ns, id)
	}
	return k.Store.DeleteStale(ctx, ns, id, doc.ContentHash)
}
