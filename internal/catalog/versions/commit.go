package versions

import (
	"context"

	"ragd"
	"ragd/internal/catalog/registry"
	"ragd/internal/catalog/vocab"
)

// Words are a version's words for query expansion: the texts to learn
// them from (an ingest) or the counts an archive carried (an import).
// Neither set, they are counted from the version's chunks in the store.
type Words struct {
	Texts []string
	Known *vocab.Counts
}

// Commit makes doc the document's current version, under lease, once the
// store holds its chunks and images: the registry switches to it, its
// words are recorded, the other versions' chunks and images are deleted
// and the namespace's cached results invalidated. It returns how many
// chunks of other versions went. A failure after the switch leaves doc
// current (searches already hide the old chunks); a retry finishes the
// cleanup.
func (k *Keeper) Commit(ctx context.Context, lease *registry.Lease, doc ragd.Document, words Words) (int, error) {
	return k.commit(ctx, lease, doc, words, true)
}

// CommitNew is Commit for the first version of a document, written by the
// first run of the first job to write it: no other version can be in the
// store, so none is looked for (two queries of Weaviate per document,
// most of a small file's share of a directory ingest). A run that failed
// or crashed after writing chunks cleans up after itself: its retry sweeps
// (it is no first run), its last failure or its cancel discards.
func (k *Keeper) CommitNew(ctx context.Context, lease *registry.Lease, doc ragd.Document, words Words) error {
	_, err := k.commit(ctx, lease, doc, words, false)
	return err
}

func (k *Keeper) commit(ctx context.Context, lease *registry.Lease, doc ragd.Document, words Words, sweep bool) (int, error) {
	if err := k.Registry.PutHeld(ctx, lease, doc); err != nil {
		return 0, err
	}
	k.record(ctx, doc, words)
	n := 0
	if sweep {
		var err error
		if n, err = k.DeleteStale(ctx, lease, doc.Namespace, doc.ID, doc.ContentHash); err != nil {
			return 0, err
		}
	}
	return n, k.Invalidate(ctx, doc.Namespace)
}

// DeleteStale deletes the document's chunks and images of every version
// but hash's, if lease is still held, and returns how many chunks went.
func (k *Keeper) DeleteStale(ctx context.Context, lease *registry.Lease, ns, id, hash string) (int, error) {
	return DeleteStaleIn(ctx, k.Store, lease, ns, id, hash)
}

// DeleteStaleIn deletes, from store, the chunks of the document's versions
// other than hash, once lease is checked held: the embedder switch
// reconciles the collection it builds with it, under the same lock and
// check as every other writer.
func DeleteStaleIn(ctx context.Context, store Store, lease *registry.Lease, ns, id, hash string) (int, error) {
	if err := lease.Held(ctx); err != nil {
		return 0, err
	}
	return store.DeleteStale(ctx, ns, id, hash)
}

// DeleteDocumentIn deletes, from store, every chunk of a document the
// registry no longer has, once lease is checked held.
func DeleteDocumentIn(ctx context.Context, store Store, lease *registry.Lease, ns, id string) (int, error) {
	if err := lease.Held(ctx); err != nil {
		return 0, err
	}
	return store.DeleteDocument(ctx, ns, id)
}

// FinishLearning learns the words of hash, the document's current
// version, when the run that made it current ended before it did: a
// retry finds the version a duplicate and would otherwise leave its words
// out of query expansion for good. texts is called only then.
func (k *Keeper) FinishLearning(ctx context.Context, ns, id, hash string, texts func() []string) error {
	if k.Vocab == nil {
		return nil
	}
	learned, err := k.Vocab.Learned(ctx, ns, id)
	if err != nil || learned == hash {
		return err
	}
	k.record(ctx, ragd.Document{Namespace: ns, ID: id, ContentHash: hash}, Words{Texts: texts()})
	return k.Invalidate(ctx, ns) // searches reload the vocabulary
}

// record records the words of doc, the current version, after the switch,
// so the statistics never describe a version searches cannot see (the
// version it replaces is recounted from its chunks, which DeleteStale has
// not deleted yet). A failure costs only expansion quality, so it is
// logged rather than failing a version already current; the next index
// of the same version learns it (FinishLearning).
func (k *Keeper) record(ctx context.Context, doc ragd.Document, words Words) {
	if k.Vocab == nil {
		return
	}
	var counts vocab.Counts
	var err error
	switch {
	case words.Texts != nil:
		counts = vocab.CountTexts(words.Texts)
	case words.Known != nil:
		counts = *words.Known
	default:
		counts, err = k.Words(ctx, doc.Namespace, doc.ID, doc.ContentHash)
	}
	if err == nil {
		err = k.Vocab.Learn(ctx, doc.Namespace, doc.ID, doc.ContentHash, counts, k.previous(doc.Namespace, doc.ID))
	}
	if err != nil {
		k.Log.WarnContext(ctx, "vocabulary not recorded; query expansion will miss this document's words",
			"kb_name", doc.Namespace, "document_id", doc.ID, "error", err)
	}
}
