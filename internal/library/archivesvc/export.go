package archivesvc

import (
	"context"
	"io"
	"slices"
	"time"

	"golang.org/x/sync/errgroup"

	"ragd"
	"ragd/internal/authn"
	"ragd/internal/catalog/archive"
	"ragd/internal/catalog/vocab"
)

// Export is a namespace about to be written as an archive.
type Export struct {
	a  *Archiver
	ns string
}

// ExportStats counts what an export wrote.
type ExportStats struct {
	Documents, Chunks, Images int
	// Skipped counts documents left out because they changed while the
	// export read them.
	Skipped int
}

// Export checks that the caller may read the namespace and that it holds
// documents, before anything is written: a namespace without documents is
// NotFound, so a misspelt kb_name is not taken for an empty backup.
func (a *Archiver) Export(ctx context.Context, kb string) (*Export, error) {
	ns, err := authn.Namespace(ctx, kb)
	if err != nil {
		return nil, err
	}
	if err := authn.RequireEveryDocument(ctx, "an export"); err != nil {
		return nil, err
	}
	n, err := a.Registry.Count(ctx, ns)
	if err != nil {
		return nil, ragd.Unavailable("redis", err)
	}
	if n == 0 {
		return nil, ragd.NotFound("namespace %s holds no documents", ns)
	}
	return &Export{a: a, ns: ns}, nil
}

// Filename is the archive's suggested file name.
func (e *Export) Filename() string { return e.ns + ".ragd.jsonl.gz" }

// exported is what an export wrote of one document's current version.
type exported struct {
	hash    string
	chunks  int
	broken  bool // met in two versions: the document changed meanwhile
	written bool // its document record is written
}

// WriteTo streams the archive to w: the chunks and images of every
// document's current version, page by page from the store's cursor, then
// the documents with their vocabularies, then the trailer. It holds one
// page at a time, and per document a few words of bookkeeping. The export
// is no snapshot: a document written while it runs is left out and named
// in the trailer, so the archive holds only whole documents. An error
// after the first byte leaves the archive without its trailer, which an
// import refuses as truncated.
func (e *Export) WriteTo(ctx context.Context, w io.Writer) (ExportStats, error) {
	a := e.a
	aw, err := archive.NewWriter(w, archive.Header{KBName: e.ns, Embedder: a.embedder(), Collection: a.Store.Collection(),
		RagdVersion: ragd.Version, CreatedAt: time.Now().UTC()})
	if err != nil {
		return ExportStats{}, err
	}
	docs := map[string]*exported{}
	var st ExportStats
	if st.Chunks, err = e.chunks(ctx, aw, docs); err != nil {
		return st, err
	}
	if st.Images, err = e.images(ctx, aw, docs); err != nil {
		return st, err
	}
	if st.Documents, err = e.documents(ctx, aw, docs); err != nil {
		return st, err
	}
	var skipped []string
	for id, d := range docs {
		if !d.written {
			aw.Skip(id)
			skipped = append(skipped, id)
		}
	}
	if st.Skipped = len(skipped); st.Skipped > 0 {
		a.Log.WarnContext(ctx, "documents left out of the export: they changed while it ran; export again to include them",
			"kb_name", e.ns, "documents", skipped[:min(len(skipped), 10)], "count", len(skipped))
	}
	if err := aw.Close(); err != nil {
		return st, err
	}
	a.Log.InfoContext(ctx, "namespace exported", "kb_name", e.ns, "documents", st.Documents, "chunks", st.Chunks,
		"images", st.Images, "skipped_documents", st.Skipped)
	return st, nil
}

// chunks writes the chunks of each document's current version.
func (e *Export) chunks(ctx context.Context, aw *archive.Writer, docs map[string]*exported) (int, error) {
	written, after := 0, ""
	for {
		page, err := e.a.Store.ScanChunks(ctx, e.ns, after, e.a.pageSize())
		if err != nil || len(page) == 0 {
			return written, err
		}
		after = page[len(page)-1].ID
		ids := make([]string, len(page))
		for i, c := range page {
			ids[i] = c.DocumentID
		}
		current, err := e.a.Registry.CurrentHashes(ctx, e.ns, ids)
		if err != nil {
			return written, ragd.Unavailable("redis", err)
		}
		for i := range page {
			c := &page[i]
			if current[c.DocumentID] != c.ContentHash || !track(docs, c.DocumentID, c.ContentHash) {
				continue // an old or unfinished version, or the document changed meanwhile
			}
			docs[c.DocumentID].chunks++
			if err := aw.Chunk(archive.ChunkOf(*c)); err != nil {
				return written, err
			}
			written++
		}
	}
}

// images writes the images of each document's current version.
func (e *Export) images(ctx context.Context, aw *archive.Writer, docs map[string]*exported) (int, error) {
	written, after := 0, ""
	for {
		page, err := e.a.Store.ScanImages(ctx, e.ns, after, e.a.pageSize())
		if err != nil || len(page) == 0 {
			return written, err
		}
		after = page[len(page)-1].ID
		ids := make([]string, len(page))
		for i, im := range page {
			ids[i] = im.DocumentID
		}
		current, err := e.a.Registry.CurrentHashes(ctx, e.ns, ids)
		if err != nil {
			return written, ragd.Unavailable("redis", err)
		}
		for i := range page {
			im := &page[i]
			if current[im.DocumentID] != im.ContentHash || !track(docs, im.DocumentID, im.ContentHash) {
				continue
			}
			if err := aw.Image(archive.ImageOf(*im)); err != nil {
				return written, err
			}
			written++
		}
	}
}

// track notes that a record of version hash of a document is about to be
// written, and reports whether it may be: not when the document was met in
// another version already (it changed between two pages), which leaves
// the document out.
func track(docs map[string]*exported, id, hash string) bool {
	d := docs[id]
	if d == nil {
		docs[id] = &exported{hash: hash}
		return true
	}
	if d.hash != hash {
		d.broken = true
	}
	return !d.broken
}

// documents writes the record of every document whose chunks were all
// written, with its vocabulary.
func (e *Export) documents(ctx context.Context, aw *archive.Writer, docs map[string]*exported) (int, error) {
	written := 0
	var cursor uint64
	for {
		page, next, err := e.a.Registry.Scan(ctx, e.ns, cursor, int64(e.a.pageSize()))
		if err != nil {
			return written, ragd.Unavailable("redis", err)
		}
		for batch := range slices.Chunk(page, vocabularyBatch) {
			n, err := e.writeDocuments(ctx, aw, docs, batch)
			written += n
			if err != nil {
				return written, err
			}
		}
		if cursor = next; cursor == 0 {
			return written, nil
		}
	}
}

// vocabularyBatch is how many documents' vocabularies are counted at
// once: a long document's is a map of thousands of words.
const vocabularyBatch = 16

// vocabularyReads is how many documents' chunks are read at once to
// count their words.
const vocabularyReads = 4

// writeDocuments writes the records of a batch of documents.
func (e *Export) writeDocuments(ctx context.Context, aw *archive.Writer, docs map[string]*exported, batch []ragd.Document) (int, error) {
	var ready []ragd.Document
	for _, doc := range batch {
		d := docs[doc.ID]
		if d == nil {
			// No chunk read: a document without any, or one made current
			// after the chunks were read (left out).
			d = &exported{hash: doc.ContentHash, broken: doc.Chunks > 0}
			docs[doc.ID] = d
		}
		if d.written || d.broken || d.hash != doc.ContentHash || d.chunks != doc.Chunks {
			continue // met twice, or changed since its chunks were read
		}
		ready = append(ready, doc)
	}
	words, err := e.vocabularies(ctx, ready)
	if err != nil {
		return 0, err
	}
	written := 0
	for i, doc := range ready {
		if words[i].Chunks != doc.Chunks {
			docs[doc.ID].broken = true // its chunks went since they were read
			continue
		}
		rec := &archive.Document{Document: doc, Vocabulary: &archive.Vocabulary{Chunks: words[i].Chunks, DF: words[i].DF}}
		if err := aw.Document(rec); err != nil {
			return written, err
		}
		docs[doc.ID].written = true
		written++
	}
	return written, nil
}

// vocabularies counts the words of each document's current version from
// its chunks in the store, as the namespace's vocabulary counted them
// (versions.Keeper.Words): Redis keeps no document's counts.
func (e *Export) vocabularies(ctx context.Context, docs []ragd.Document) ([]vocab.Counts, error) {
	out := make([]vocab.Counts, len(docs))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(vocabularyReads)
	for i, doc := range docs {
		g.Go(func() error {
			c, err := e.a.Versions.Words(gctx, e.ns, doc.ID, doc.ContentHash)
			out[i] = c
			return err
		})
	}
	return out, g.Wait()
}
