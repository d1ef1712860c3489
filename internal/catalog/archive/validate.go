package archive

import (
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
)

// maxChunkIndex bounds a chunk's index, and so a document's chunks.
const maxChunkIndex = 1 << 24

// Summary is what Validate found in an archive.
type Summary struct {
	Header  Header
	Trailer Trailer
	// Skipped are the documents whose chunks or images the archive holds
	// without a document record (the trailer lists them): an import leaves
	// them out.
	Skipped map[string]bool
}

// Rules are what an importer requires of an archive beyond its format:
// the limits it holds its own documents to. A nil rule checks nothing.
type Rules struct {
	// Header sees the header before any other record is read; its
	// refusal is returned as it is.
	Header func(Header) error
	// Chunk, Image and Document see each record once the format's checks
	// passed. A refusal made with Refuse names its field; Validate adds
	// the record's number and place.
	Chunk    func(*Chunk) error
	Image    func(*Image) error
	Document func(*Document) error
}

// docState is what Validate knows of one document while reading. Its
// source is not kept: the document's id is derived from it (Reader checks
// each record's), so records of one id are of one source.
type docState struct {
	hash string
	// access is the access of its chunks and images (joined), once one
	// is read: every one and the document record must agree.
	access   *string
	chunks   int
	maxIndex int
	seen     indexSet
	record   bool
}

// Validate reads a whole archive and checks that an import can load it in
// full: besides what Reader checks of each record and rules of their
// contents, every document's chunks are of the document's version, each
// index once, as many as the document records; a document (and so a
// source) appears once. Memory grows with the number of documents (about
// 200 bytes each) and the chunks read (at most 16 bytes each until
// their document's record), not with the archive's size or the numbers
// its records carry.
func Validate(r io.Reader, rules Rules) (*Summary, error) {
	ar, err := NewReader(r)
	if err != nil {
		return nil, err
	}
	if rules.Header != nil {
		if err := rules.Header(ar.Header()); err != nil {
			return nil, err
		}
	}
	docs := map[string]*docState{}
	for {
		rec, err := ar.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		if err := checkRecord(ar, docs, rec); err != nil {
			return nil, err
		}
		if err := rules.check(ar, rec); err != nil {
			return nil, err
		}
	}
	sum := &Summary{Header: ar.Header(), Trailer: ar.Trailer(), Skipped: map[string]bool{}}
	for id, st := range docs {
		if !st.record {
			sum.Skipped[id] = true
		}
	}
	for _, id := range sum.Trailer.Skipped {
		if st := docs[id]; st != nil && st.record {
			return nil, &Error{Msg: fmt.Sprintf("the trailer lists document %s as left out, but the archive holds it", Clip(id))}
		}
	}
	if missing := unlisted(sum.Skipped, sum.Trailer.Skipped); len(missing) > 0 {
		return nil, &Error{Msg: fmt.Sprintf("documents %v have chunks or images but no document record, and the trailer does not list them as left out",
			missing)}
	}
	return sum, nil
}

// check applies the rule for rec's type; a refusal is placed in rec.
func (rules Rules) check(ar *Reader, rec Record) error {
	var err error
	var at Place
	switch {
	case rec.Chunk != nil && rules.Chunk != nil:
		at, err = Place{Type: TypeChunk, DocumentID: rec.Chunk.DocumentID, Index: rec.Chunk.Index}, rules.Chunk(rec.Chunk)
	case rec.Image != nil && rules.Image != nil:
		at, err = Place{Type: TypeImage, DocumentID: rec.Image.DocumentID, Index: rec.Image.Index}, rules.Image(rec.Image)
	case rec.Document != nil && rules.Document != nil:
		at, err = Place{Type: TypeDocument, DocumentID: rec.Document.Document.ID}, rules.Document(rec.Document)
	}
	if err == nil {
		return nil
	}
	var refusal *Error
	if errors.As(err, &refusal) && refusal.At != nil {
		return ar.fault(at, refusal.At.Field, "%s", refusal.Msg)
	}
	return ar.fault(at, "", "%v", err)
}

// checkRecord checks one record against what came before it.
func checkRecord(ar *Reader, docs map[string]*docState, rec Record) error {
	switch rec.Type {
	case TypeChunk:
		c := rec.Chunk
		at := Place{Type: TypeChunk, DocumentID: c.DocumentID, Index: c.Index}
		st, err := stateOf(ar, docs, at, c.ContentHash, c.Access)
		if err != nil {
			return err
		}
		if !st.seen.add(c.Index) {
			return ar.fault(at, "chunk_index", "document %s has two chunks with index %d", c.DocumentID, c.Index)
		}
		st.chunks++
		st.maxIndex = max(st.maxIndex, c.Index)
	case TypeImage:
		im := rec.Image
		if _, err := stateOf(ar, docs, Place{Type: TypeImage, DocumentID: im.DocumentID, Index: im.Index}, im.ContentHash, im.Access); err != nil {
			return err
		}
	case TypeDocument:
		return checkDocument(ar, docs, rec.Document)
	}
	return nil
}

// stateOf returns the state of a document met in a chunk or image record,
// checking the record is of the same version as the others.
func stateOf(ar *Reader, docs map[string]*docState, at Place, hash string, access []string) (*docState, error) {
	id := at.DocumentID
	st := docs[id]
	if st == nil {
		st = &docState{hash: hash, maxIndex: -1}
		docs[id] = st
	}
	joined := strings.Join(access, ",")
	switch {
	case st.record:
		return nil, ar.fault(at, "document_id", "a chunk or image of document %s after the document", id)
	case st.hash != hash:
		return nil, ar.fault(at, "content_hash", "document %s has chunks or images of two versions (%s and %s)", id, st.hash, hash)
	case st.access != nil && *st.access != joined:
		return nil, ar.fault(at, "access", "document %s has chunks or images of two accesses ([%s] and [%s])", id, Clip(*st.access), Clip(joined))
	}
	st.access = &joined
	return st, nil
}

// checkDocument checks a document against its chunks.
func checkDocument(ar *Reader, docs map[string]*docState, d *Document) error {
	doc := d.Document
	at := Place{Type: TypeDocument, DocumentID: doc.ID}
	st := docs[doc.ID]
	if st == nil {
		st = &docState{hash: doc.ContentHash, maxIndex: -1}
		docs[doc.ID] = st
	}
	switch {
	case st.record:
		return ar.fault(at, "document_id", "document %s (source %s) appears twice: an archive holds each document, and so each source, once",
			doc.ID, Clip(doc.Source))
	case st.hash != doc.ContentHash:
		return ar.fault(at, "content_hash", "document %s is version %s but its chunks are of version %s", doc.ID, doc.ContentHash, st.hash)
	case st.access != nil && *st.access != strings.Join(doc.Access, ","):
		return ar.fault(at, "access", "document %s is shared with [%s] but its chunks with [%s]", doc.ID, Clip(strings.Join(doc.Access, ",")), Clip(*st.access))
	case st.chunks != doc.Chunks || st.maxIndex >= doc.Chunks:
		return ar.fault(at, "chunks", "document %s records %d chunks but the archive holds %d of them", doc.ID, doc.Chunks, st.chunks)
	}
	st.record, st.seen = true, indexSet{}
	return nil
}

// unlisted returns, sorted, the ids of set that list lacks.
func unlisted(set map[string]bool, list []string) []string {
	listed := make(map[string]bool, len(list))
	for _, id := range list {
		listed[id] = true
	}
	var out []string
	for id := range set {
		if !listed[id] {
			out = append(out, id)
		}
	}
	sort.Strings(out)
	return out
}
