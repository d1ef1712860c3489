package worker

import (
	"context"

	"ragd"
	"ragd/internal/jobs"
)

// A file a source renamed without changing it is indexed under its new
// name (its id follows its source) from its old document's chunks: their
// vectors are carried over rather than embedded again, and the old
// document is deleted once the new one is indexed. Anything that keeps
// the old chunks from standing in — the old document gone or changed, a
// different chunking, the store unreadable — is indexed as usual.

// carryVectors gives chunks the vectors of the same chunks of document
// pl.MoveFrom, all or none, and says how many it gave.
func (p *Pipeline) carryVectors(ctx context.Context, pl jobs.DocumentPayload, hash string, chunks []ragd.Chunk) int {
	if pl.MoveFrom == "" || p.Vectors == nil || len(chunks) == 0 {
		return 0
	}
	old, err := p.Registry.GetAny(ctx, pl.Namespace, pl.MoveFrom)
	if err != nil || old.ContentHash != hash || old.Chunks != len(chunks) {
		return 0
	}
	got, err := p.Vectors.DocumentVectors(ctx, pl.Namespace, pl.MoveFrom, hash, 0, len(chunks))
	if err != nil || len(got) != len(chunks) {
		return 0
	}
	for i, c := range got {
		if c.Index != i || len(c.Vector) == 0 || c.EmbeddingText() != chunks[i].EmbeddingText() {
			return 0
		}
	}
	for i := range chunks {
		chunks[i].Vector = got[i].Vector
	}
	return len(chunks)
}

// carried reports whether every chunk of batch has its vector already.
func carried(batch []ragd.Chunk) bool {
	for _, c := range batch {
		if len(c.Vector) == 0 {
			return false
		}
	}
	return true
}

// finishMove deletes the document a moved file left, once the file's
// own is indexed.
func (p *Pipeline) finishMove(ctx context.Context, pl jobs.DocumentPayload, res *ragd.DocumentResult) error {
	if pl.MoveFrom == "" || pl.MoveFrom == pl.DocumentID {
		return nil
	}
	res.MovedFrom = pl.MoveFrom
	_, err := p.Versions.Remove(ctx, pl.Namespace, pl.MoveFrom)
	if ragd.KindOf(err) == ragd.KindNotFound {
		return nil // removed by an earlier run
	}
	return err
}
