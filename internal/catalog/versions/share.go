package versions

import (
	"context"

	"ragd"
	"ragd/internal/catalog/registry"
)

// Share changes who may see doc, the current version, under lease: the
// store's copies first (chunks and images), then the registry, which
// moves the namespace's epoch and with it the cached results. A search
// meanwhile filters by the store's copies, so a narrowed document leaves
// results as its chunks are rewritten and is gone from all of them, and
// from every cached result, once Share returns. access is in
// ragd.NormalizeAccess form.
func (k *Keeper) Share(ctx context.Context, lease *registry.Lease, doc ragd.Document, access []string) (ragd.Document, error) {
	if err := lease.Held(ctx); err != nil {
		return doc, err
	}
	if _, err := k.Store.SetAccess(ctx, doc.Namespace, doc.ID, doc.ContentHash, access); err != nil {
		return doc, err
	}
	doc.Access = access
	if err := k.Registry.PutHeld(ctx, lease, doc); err != nil {
		return doc, err
	}
	return doc, k.Invalidate(ctx, doc.Namespace)
}
