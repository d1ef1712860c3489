package versions

import (
	"context"

	"ragd"
	"ragd/internal/catalog/vocab"
)

// Store is what a Keeper needs of the chunk store: its writes, and a
// version's chunks to recount its words (vocab.Previous).
type Store interface {
	ragd.ChunkWriter
	DocumentChunks(ctx context.Context, namespace, documentID, contentHash string, from, limit int) ([]ragd.Chunk, error)
}

// wordsPage is how many chunks one store call reads when recounting.
const wordsPage = 500

// Words counts the words of version hash of a document from the chunks
// the store holds, as an ingest counted them (vocab.CountTexts of each
// chunk's EmbeddingText): what the vocabulary drops when that version is
// replaced or deleted, and what an export carries.
func (k *Keeper) Words(ctx context.Context, ns, id, hash string) (vocab.Counts, error) {
	c := vocab.Counts{DF: map[string]int{}}
	for from := 0; ; {
		page, err := k.Store.DocumentChunks(ctx, ns, id, hash, from, wordsPage)
		if err != nil {
			return vocab.Counts{}, err
		}
		for _, ch := range page {
			c.Add(ch.EmbeddingText())
		}
		if len(page) < wordsPage {
			return c, nil
		}
		from = page[len(page)-1].Index + 1
	}
}

// previous recounts an earlier version of a document for the vocabulary.
func (k *Keeper) previous(ns, id string) vocab.Previous {
	return func(ctx context.Context, hash string) (vocab.Counts, error) { return k.Words(ctx, ns, id, hash) }
}

// countedNow recounts the version the vocabulary records for a document
// now, for a Forget after its chunks are deleted: the Previous it returns
// answers from that count (or, if it could not be read, from the store
// again).
func (k *Keeper) countedNow(ctx context.Context, ns, id string) vocab.Previous {
	again := k.previous(ns, id)
	if k.Vocab == nil {
		return again
	}
	learned, err := k.Vocab.Learned(ctx, ns, id)
	if err != nil || learned == "" {
		return again
	}
	counts, err := k.Words(ctx, ns, id, learned)
	if err != nil {
		return again
	}
	return func(ctx context.Context, hash string) (vocab.Counts, error) {
		if hash == learned {
			return counts, nil
		}
		return again(ctx, hash)
	}
}
