package library

import (
	"context"
	"log/slog"
	"time"

	"ragd"
	"ragd/cache"
	"ragd/registry"
	"ragd/vocab"
)

// Remover deletes a document's data wherever it lives: its chunks and
// images, then its registry entry (which moves the namespace's epoch, so
// searches and cached results stop showing it at once), then its
// vocabulary, and bumps the namespace's cache generation. DELETE
// /documents/{id} and a directory sync's prune both go through it.
type Remover struct {
	Store       ragd.ChunkStore
	Registry    *registry.Registry
	Vocab       *vocab.Store // nil skips the vocabulary
	Generations *cache.Generations
	Log         *slog.Logger
}

// documentLockWait bounds how long a removal, an import or a discard
// waits for a job writing the same document.
const documentLockWait = 20 * time.Second

// Remove deletes the document and returns how many chunks went.
func (r Remover) Remove(ctx context.Context, ns, id string) (int, error) {
	lease, err := r.Registry.Lock(ctx, ns, id, documentLockWait)
	if err != nil {
		return 0, ragd.Unavailable("redis", err)
	}
	defer lease.Release()
	// Chunks first: if Weaviate fails, the document is still listed and the
	// same delete can be tried again. The other order would forget the
	// document and strand its chunks where no request can reach them.
	n, err := r.Store.DeleteDocument(ctx, ns, id)
	if err != nil {
		return 0, err
	}
	if err := r.Registry.Delete(ctx, ns, id); err != nil {
		return 0, ragd.Unavailable("redis", err)
	}
	if r.Vocab != nil {
		if err := r.Vocab.Forget(ctx, ns, id); err != nil {
			// Costs only expansion quality: a gone word may be added to
			// queries and match nothing.
			r.Log.Warn("vocabulary of a deleted document not forgotten", "kb_name", ns, "document_id", id, "error", err)
		}
	}
	if _, err := r.Generations.Bump(ctx, ns); err != nil {
		return 0, ragd.Unavailable("redis", err)
	}
	r.Log.Info("document deleted", "kb_name", ns, "document_id", id, "chunks", n)
	return n, nil
}
