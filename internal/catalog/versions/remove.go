package versions

import (
	"context"

	"ragd"
)

// Remove deletes the document wherever it lives and returns how many
// chunks went: its chunks and images first, then its registry entry
// (which moves the namespace's epoch, so searches and cached results stop
// showing it at once), then its words, and invalidates the namespace's
// cached results. DELETE /documents/{id} and a sync's prune use it.
func (k *Keeper) Remove(ctx context.Context, ns, id string) (int, error) {
	lease, err := k.Lock(ctx, ns, id)
	if err != nil {
		return 0, ragd.Unavailable("redis", err)
	}
	defer lease.Release()
	words := k.countedNow(ctx, ns, id) // while its chunks can still be counted
	// Chunks first: if Weaviate fails, the document is still listed and the
	// same delete can be tried again. The other order would forget the
	// document and strand its chunks where no request can reach them.
	n, err := k.Store.DeleteDocument(ctx, ns, id)
	if err != nil {
		return 0, err
	}
	if err := k.Registry.Delete(ctx, ns, id); err != nil {
		return 0, ragd.Unavailable("redis", err)
	}
	if k.Vocab != nil {
		if err := k.Vocab.Forget(ctx, ns, id, words); err != nil {
			// Costs only expansion quality: a gone word may be added to
			// queries and match nothing.
			k.Log.WarnContext(ctx, "vocabulary of a deleted document not forgotten", "kb_name", ns, "document_id", id, "error", err)
		}
	}
	if err := k.Invalidate(ctx, ns); err != nil {
		return 0, ragd.Unavailable("redis", err)
	}
	k.Log.InfoContext(ctx, "document deleted", "kb_name", ns, "document_id", id, "chunks", n)
	return n, nil
}

// Clear empties the namespace: its registry, then its chunks and images,
// its words (else query expansion would go on adding the cleared
// documents' words), then its cached results.
func (k *Keeper) Clear(ctx context.Context, ns string) error {
	if err := k.Registry.ClearNamespace(ctx, ns); err != nil {
		return ragd.Unavailable("redis", err)
	}
	if err := k.Store.ClearNamespace(ctx, ns); err != nil {
		return err
	}
	if k.Vocab != nil {
		if err := k.Vocab.Clear(ctx, ns); err != nil {
			return ragd.Unavailable("redis", err)
		}
	}
	if err := k.Invalidate(ctx, ns); err != nil {
		return ragd.Unavailable("redis", err)
	}
	k.Log.InfoContext(ctx, "namespace cleared", "kb_name", ns)
	return nil
}
