package archive

import (
	"fmt"
	"strings"

	"ragd"
)

// check counts a record and checks it holds what ragd itself writes: ids
// derived as ragd derives them, a known source type, counts and positions
// never negative, vectors of the header's dimension and finite numbers.
// An archive is often edited by hand or by another program, and whatever
// passes here is written to the store and the registry as it is.
func (r *Reader) check(rec wireRecord) (Record, error) {
	switch {
	case rec.Type == TypeChunk && rec.Chunk != nil:
		r.counts.Chunks++
		c, err := r.checkChunk(rec.Chunk)
		return Record{Type: rec.Type, Chunk: c}, err
	case rec.Type == TypeImage && rec.Image != nil:
		r.counts.Images++
		im, err := r.checkImage(rec.Image)
		return Record{Type: rec.Type, Image: im}, err
	case rec.Type == TypeDocument && rec.Document != nil:
		r.counts.Documents++
		return Record{Type: rec.Type, Document: rec.Document}, r.checkDocument(rec.Document)
	}
	return Record{}, r.corrupt("a %s record without its %s", rec.Type, rec.Type)
}

func (r *Reader) checkChunk(w *wireChunk) (*Chunk, error) {
	c := &w.Chunk
	at := Place{Type: TypeChunk, DocumentID: c.DocumentID, Index: c.Index}
	if c.ID == "" || c.DocumentID == "" || c.ContentHash == "" {
		return nil, r.fault(at, "", "a chunk without id, document_id or content_hash")
	}
	if err := r.checkOf(at, c.DocumentID, c.Source, c.ContentHash); err != nil {
		return nil, err
	}
	switch want := ragd.ChunkID(c.DocumentID, c.ContentHash, c.Index); {
	case c.Index < 0 || c.Index >= maxChunkIndex:
		return nil, r.fault(at, "chunk_index", "chunk_index %d is not between 0 and %d", c.Index, maxChunkIndex-1)
	case c.ID != want:
		return nil, r.fault(at, "id", "id %q is not %s, the id ragd derives from the chunk's document, version and index", Clip(c.ID), want)
	case !c.SourceType.Valid():
		return nil, r.fault(at, "source_type", "source_type %q is none ragd loads", Clip(string(c.SourceType)))
	case c.Level < 0:
		return nil, r.fault(at, "level", "level %d is negative", c.Level)
	case c.Page < 0:
		return nil, r.fault(at, "page", "page %d is negative", c.Page)
	}
	var err error
	c.Vector, err = r.vector(at, w.Vector)
	return c, err
}

func (r *Reader) checkImage(w *wireImage) (*Image, error) {
	im := &w.Image
	at := Place{Type: TypeImage, DocumentID: im.DocumentID, Index: im.Index}
	if im.ID == "" || im.DocumentID == "" || im.ContentHash == "" {
		return nil, r.fault(at, "", "an image without id, document_id or content_hash")
	}
	if err := r.checkOf(at, im.DocumentID, im.Source, im.ContentHash); err != nil {
		return nil, err
	}
	switch want := ragd.ImageID(im.DocumentID, im.ContentHash, im.Index); {
	case im.Index < 0:
		return nil, r.fault(at, "image_index", "image_index %d is negative", im.Index)
	case im.ID != want:
		return nil, r.fault(at, "id", "id %q is not %s, the id ragd derives from the image's document, version and index", Clip(im.ID), want)
	}
	for _, f := range []struct {
		name string
		v    int
	}{{"page", im.Page}, {"position", im.Position}, {"width", im.Width}, {"height", im.Height}} {
		if f.v < 0 {
			return nil, r.fault(at, f.name, "%s %d is negative", f.name, f.v)
		}
	}
	var err error
	im.Vector, err = r.vector(at, w.Vector)
	return im, err
}

// maxWebURLBytes bounds a document's web_url (a git source's citation).
const maxWebURLBytes = 8192

func (r *Reader) checkDocument(d *Document) error {
	doc := &d.Document
	at := Place{Type: TypeDocument, DocumentID: doc.ID}
	if doc.ID == "" || doc.ContentHash == "" || doc.Source == "" {
		return r.fault(at, "", "a document without document_id, content_hash or source")
	}
	if err := r.checkOf(at, doc.ID, doc.Source, doc.ContentHash); err != nil {
		return err
	}
	switch {
	case doc.RawHash != "" && !isHex(doc.RawHash, 64):
		return r.fault(at, "raw_hash", "raw_hash %q is not a sha256 in hex", Clip(doc.RawHash))
	case !doc.SourceType.Valid():
		return r.fault(at, "source_type", "source_type %q is none ragd loads", Clip(string(doc.SourceType)))
	case doc.Chunks == 0:
		return r.fault(at, "chunks", "the document has no chunks: ragd makes none (an ingest refuses a source without text), "+
			"and no search could find one")
	case doc.Chunks < 0 || doc.Chunks > maxChunkIndex:
		return r.fault(at, "chunks", "chunks %d is not between 1 and %d", doc.Chunks, maxChunkIndex)
	case doc.FileSize < 0:
		return r.fault(at, "file_size", "file_size %d is negative", doc.FileSize)
	case doc.Commit != "" && !isHex(doc.Commit, 40) && !isHex(doc.Commit, 64):
		return r.fault(at, "commit", "commit %q is not a git commit id in hex", Clip(doc.Commit))
	case doc.WebURL != "" && (len(doc.WebURL) > maxWebURLBytes || !strings.HasPrefix(doc.WebURL, "https://") && !strings.HasPrefix(doc.WebURL, "http://")):
		return r.fault(at, "web_url", "web_url %q is no http(s) URL of at most %d bytes", Clip(doc.WebURL), maxWebURLBytes)
	}
	return r.checkVocabulary(at, d.Vocabulary)
}

// checkVocabulary checks a vocabulary counts as ragd's does: each word
// in at least one of its chunks and at most all of them. Query expansion
// weighs words by these counts.
func (r *Reader) checkVocabulary(at Place, v *Vocabulary) error {
	if v == nil {
		return nil
	}
	if v.Chunks < 0 {
		return r.fault(at, "vocabulary", "the vocabulary counts %d chunks", v.Chunks)
	}
	for w, n := range v.DF {
		if w == "" || n < 1 || n > v.Chunks {
			return r.fault(at, "vocabulary", "the vocabulary has word %q in %d of its %d chunks", Clip(w), n, v.Chunks)
		}
	}
	return nil
}

// checkOf checks a record names its document and version as ragd does:
// the version by a sha256, the document by the id derived from the
// archive's namespace and the record's source. So a document's id names
// its source: the records of one id are of one source, and one source is
// never two documents.
func (r *Reader) checkOf(at Place, docID, source, hash string) error {
	if !isHex(hash, 64) {
		return r.fault(at, "content_hash", "content_hash %q is not a sha256 in hex", Clip(hash))
	}
	if want := ragd.DocumentID(r.header.KBName, source); docID != want {
		return r.fault(at, "document_id", "document_id %q is not %s, the id ragd derives from namespace %s and source %q",
			Clip(docID), want, r.header.KBName, Clip(source))
	}
	return nil
}

// vector reads a record's vector, of exactly the header's dimension.
func (r *Reader) vector(at Place, raw []byte) ([]float32, error) {
	dim := r.header.Embedder.Dimension
	v, err := parseVector(raw, dim)
	if err != nil {
		return nil, r.fault(at, "vector", "%v", err)
	}
	if len(v) != dim {
		return nil, r.fault(at, "vector", "the vector has %d numbers, not the header's dimension %d", len(v), dim)
	}
	return v, nil
}

// fault is the error of the record just read, at field of place at.
func (r *Reader) fault(at Place, field, format string, args ...any) error {
	at.Field = field
	return &Error{Record: r.n, At: &at, Msg: fmt.Sprintf(format, args...)}
}

// isHex reports whether s is n lowercase hex digits, as ragd writes a
// hash.
func isHex(s string, n int) bool {
	if len(s) != n {
		return false
	}
	for i := range len(s) {
		if c := s[i]; (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}
