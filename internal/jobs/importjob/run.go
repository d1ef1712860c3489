package importjob

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"ragd"
	"ragd/internal/catalog/archive"
	"ragd/internal/catalog/versions"
	"ragd/internal/catalog/vocab"
	"ragd/internal/jobs"
	"ragd/wire"
)

// RunImport loads a stored archive into the payload's namespace: the
// archive is checked whole again first (nothing is written from a file
// damaged since its upload), then its chunks and images are written with
// their vectors, and each document is made current only once all its
// chunks are in the store, as an ingest does: chunks first, then the
// registry, then the old version's chunks deleted. A document of the same
// id already in the namespace is replaced by the archive's version; the
// namespace's other documents stay. Retrying writes the same objects
// again (ids are deterministic).
func (a *Runner) RunImport(ctx context.Context, pl jobs.ImportPayload, rep *jobs.Reporter) (wire.ImportResult, error) {
	res := wire.ImportResult{KBName: pl.Namespace, FromKBName: pl.FromKBName}
	sum, err := a.validateStored(pl.ArchivePath)
	if err != nil {
		return res, err
	}
	f, err := os.Open(pl.ArchivePath)
	if err != nil {
		return res, err
	}
	defer f.Close()
	ar, err := archive.NewReader(f)
	if err != nil {
		return res, ragd.Invalid("archive", "value_error", "%v", err)
	}
	im := &importer{a: a, ns: pl.Namespace, from: sum.Header.KBName, skipped: sum.Skipped, rep: rep,
		total: sum.Trailer.Chunks, res: &res}
	res.DocumentsSkipped = len(sum.Trailer.Skipped)
	if err := im.run(ctx, ar); err != nil {
		return res, err
	}
	if err := os.Remove(pl.ArchivePath); err != nil {
		a.Log.WarnContext(ctx, "imported archive not removed", "path", pl.ArchivePath, "error", err)
	}
	a.Log.InfoContext(ctx, "archive imported", "kb_name", pl.Namespace, "from_kb_name", res.FromKBName, "documents", res.DocumentsImported,
		"replaced", res.DocumentsReplaced, "chunks", res.ChunksImported, "images", res.ImagesImported)
	return res, nil
}

// validateStored checks the stored archive whole, by the rules of its
// upload; a missing or damaged file is a permanent (Invalid) failure.
func (a *Runner) validateStored(path string) (*archive.Summary, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, ragd.Invalid("archive", "value_error", "the uploaded archive is gone: %v", err)
	}
	defer f.Close()
	sum, err := archive.Validate(f, archive.Admit(archive.EmbedderOf(a.Embedder)))
	var ae *archive.Error
	if errors.As(err, &ae) {
		return nil, ae.Invalid()
	}
	return sum, err
}

// importer is one run of an import job.
type importer struct {
	a        *Runner
	ns, from string
	skipped  map[string]bool
	chunks   []ragd.Chunk
	images   []ragd.Image
	rep      *jobs.Reporter
	total    int
	res      *wire.ImportResult
	// pending are the documents staged (locked, their chunks checked)
	// for the next CommitBatch.
	pending  []versions.Pending
	replaced []bool
}

// DefaultCommitBatch is how many documents an import makes current at
// once: one registry transaction, one move of the namespace's epoch and
// one cache invalidation per batch instead of per document. The documents
// of a batch become visible to searches together.
const DefaultCommitBatch = 500

// run writes the archive's records in order, flushing the pending chunks
// and images before the first document is made current.
func (im *importer) run(ctx context.Context, ar *archive.Reader) error {
	defer im.release()
	im.rep.Progress(0, im.total, "chunks")
	for {
		rec, err := ar.Next()
		if errors.Is(err, io.EOF) {
			if err := im.flush(ctx); err != nil {
				return err
			}
			return im.commitPending(ctx)
		}
		if err != nil {
			return ragd.Invalid("archive", "value_error", "%v", err)
		}
		switch rec.Type {
		case archive.TypeChunk:
			if !im.skipped[rec.Chunk.DocumentID] {
				im.chunks = append(im.chunks, im.chunk(rec.Chunk))
			}
		case archive.TypeImage:
			if !im.skipped[rec.Image.DocumentID] {
				im.images = append(im.images, im.image(rec.Image))
			}
		case archive.TypeDocument:
			if err := im.flush(ctx); err != nil {
				return err
			}
			if err := im.stage(ctx, rec.Document); err != nil {
				return err
			}
		}
		if len(im.chunks) >= im.a.pageSize() || len(im.images) >= im.a.pageSize() {
			if err := im.flush(ctx); err != nil {
				return err
			}
		}
	}
}

// flush writes the pending chunks and images.
func (im *importer) flush(ctx context.Context) error {
	if len(im.chunks) > 0 {
		if err := im.a.Store.Upsert(ctx, im.ns, im.chunks); err != nil {
			return err
		}
		im.res.ChunksImported += len(im.chunks)
		im.chunks = im.chunks[:0]
		im.rep.Progress(im.res.ChunksImported, im.total, "chunks")
	}
	if len(im.images) > 0 {
		if err := im.a.Store.UpsertImages(ctx, im.ns, im.images); err != nil {
			return err
		}
		im.res.ImagesImported += len(im.images)
		im.images = im.images[:0]
	}
	return nil
}

// stage locks an archived document and checks that the store holds every
// chunk of its version: a job that wrote or deleted the same document
// meanwhile may have removed some, and the import then fails (and is
// retried) rather than make a partial document current. A full batch of
// staged documents is committed.
func (im *importer) stage(ctx context.Context, rec *archive.Document) error {
	doc := rec.Document
	doc.Namespace, doc.ID, doc.Source = im.ns, im.docID(doc.ID, doc.Source), im.source(doc.Source)
	lease, err := im.a.Versions.Lock(ctx, im.ns, doc.ID)
	if err != nil {
		return err
	}
	// An archive without the vocabulary: Commit counts it from the chunks.
	var words versions.Words
	if v := rec.Vocabulary; v != nil {
		words.Known = &vocab.Counts{Chunks: v.Chunks, DF: v.DF}
	}
	im.pending = append(im.pending, versions.Pending{Lease: lease, Doc: doc, Words: words})
	n, err := im.a.Store.CountVersion(ctx, im.ns, doc.ID, doc.ContentHash)
	if err != nil {
		return err
	}
	if n != doc.Chunks {
		return fmt.Errorf("document %s (%s): the store holds %d of its %d chunks; another job wrote or deleted it during the import",
			doc.ID, doc.Source, n, doc.Chunks)
	}
	prev, err := im.a.Registry.GetAny(ctx, im.ns, doc.ID)
	if err != nil && ragd.KindOf(err) != ragd.KindNotFound {
		return err
	}
	im.replaced = append(im.replaced, prev != nil && prev.ContentHash != doc.ContentHash)
	if len(im.pending) >= im.a.commitBatch() {
		return im.commitPending(ctx)
	}
	return nil
}

// commitPending makes the staged documents current at once
// (versions.Keeper.CommitBatch) and releases their locks.
func (im *importer) commitPending(ctx context.Context) error {
	defer im.release()
	if _, err := im.a.Versions.CommitBatch(ctx, im.ns, im.pending); err != nil {
		return err
	}
	im.res.DocumentsImported += len(im.pending)
	for _, r := range im.replaced {
		if r {
			im.res.DocumentsReplaced++
		}
	}
	return nil
}

// release lets go of the staged documents' locks.
func (im *importer) release() {
	for _, p := range im.pending {
		p.Lease.Release()
	}
	im.pending, im.replaced = im.pending[:0], im.replaced[:0]
}

// renamed reports whether the archive goes into another namespace than
// the one it came from.
func (im *importer) renamed() bool { return im.ns != im.from }

// docID is a document's id in the target namespace: the archive's in the
// same namespace; in another, the id ragd derives there from the source,
// so indexing the same source later finds the imported document.
func (im *importer) docID(id, source string) string {
	if !im.renamed() {
		return id
	}
	return ragd.DocumentID(im.ns, im.source(source))
}

// source is a source in the target namespace: an upload's names its
// namespace (upload://<kb_name>/<file>), anything else stays.
func (im *importer) source(s string) string { return ragd.MoveUploadURI(s, im.from, im.ns) }

func (im *importer) chunk(c *archive.Chunk) ragd.Chunk {
	doc := im.docID(c.DocumentID, c.Source)
	id := c.ID
	if im.renamed() {
		id = ragd.ChunkID(doc, c.ContentHash, c.Index)
	}
	out := c.Domain()
	out.ID, out.DocumentID, out.Namespace, out.Source = id, doc, im.ns, im.source(c.Source)
	return out
}

func (im *importer) image(x *archive.Image) ragd.Image {
	doc := im.docID(x.DocumentID, x.Source)
	id := x.ID
	if im.renamed() {
		id = ragd.ImageID(doc, x.ContentHash, x.Index)
	}
	out := x.Domain()
	out.ID, out.DocumentID, out.Namespace, out.Source = id, doc, im.ns, im.source(x.Source)
	return out
}
