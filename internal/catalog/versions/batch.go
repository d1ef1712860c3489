package versions

import (
	"context"

	"ragd"
	"ragd/internal/catalog/registry"
)

// Pending is a document whose version's chunks and images are written,
// waiting, under its lock, to be made current by CommitBatch.
type Pending struct {
	Lease *registry.Lease
	Doc   ragd.Document
	Words Words
}

// CommitBatch is Commit for documents of one namespace at once (an
// import): one registry transaction switches them all and moves the
// namespace's epoch once, then each one's words are recorded and its
// other versions deleted, and the cached results are invalidated once.
// It returns, per document, how many chunks of other versions went. A
// failure after the switch leaves the batch current; a retry finishes
// the cleanup.
func (k *Keeper) CommitBatch(ctx context.Context, ns string, batch []Pending) ([]int, error) {
	held := make([]registry.Held, len(batch))
	for i, p := range batch {
		held[i] = registry.Held{Lease: p.Lease, Doc: p.Doc}
	}
	if err := k.Registry.PutHeldBatch(ctx, ns, held); err != nil {
		return nil, err
	}
	removed := make([]int, len(batch))
	for i, p := range batch {
		k.record(ctx, p.Doc, p.Words)
		n, err := k.DeleteStale(ctx, p.Lease, ns, p.Doc.ID, p.Doc.ContentHash)
		if err != nil {
			return nil, err
		}
		removed[i] = n
	}
	return removed, k.Invalidate(ctx, ns)
}
