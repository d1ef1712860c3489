package archive

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"sort"
)

// maxChunkIndex bounds a chunk's index, so a hostile archive cannot make
// Validate allocate for an index it made up.
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

// docState is what Validate knows of one document while reading.
type docState struct {
	hash, source string
	chunks       int
	maxIndex     int
	seen         []uint64 // chunk indexes met, as a bit set
	record       bool
}

// Validate reads a whole archive and checks that an import can load it in
// full: besides what Reader checks, every document's chunks are of the
// document's version and source, each index once, as many as the document
// records; a document appears once. accept, when set, sees the header
// before any other record is read and may refuse it. Memory grows with the
// number of documents (tens of bytes each) and their chunk counts (a bit
// each), not with the archive's size.
func Validate(r io.Reader, accept func(Header) error) (*Summary, error) {
	ar, err := NewReader(r)
	if err != nil {
		return nil, err
	}
	if accept != nil {
		if err := accept(ar.Header()); err != nil {
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
	}
	sum := &Summary{Header: ar.Header(), Trailer: ar.Trailer(), Skipped: map[string]bool{}}
	for id, st := range docs {
		if !st.record {
			sum.Skipped[id] = true
		}
	}
	for _, id := range sum.Trailer.Skipped {
		if st := docs[id]; st != nil && st.record {
			return nil, &Error{Msg: fmt.Sprintf("the trailer lists document %s as left out, but the archive holds it", id)}
		}
	}
	if missing := unlisted(sum.Skipped, sum.Trailer.Skipped); len(missing) > 0 {
		return nil, &Error{Msg: fmt.Sprintf("documents %v have chunks or images but no document record, and the trailer does not list them as left out",
			missing)}
	}
	return sum, nil
}

// checkRecord checks one record against what came before it.
func checkRecord(ar *Reader, docs map[string]*docState, rec Record) error {
	switch rec.Type {
	case TypeChunk:
		c := rec.Chunk
		st, err := stateOf(ar, docs, c.DocumentID, c.ContentHash, c.Source)
		if err != nil {
			return err
		}
		if c.Index < 0 || c.Index >= maxChunkIndex {
			return ar.corrupt("chunk %s has index %d", c.ID, c.Index)
		}
		word, bit := c.Index/64, uint64(1)<<(c.Index%64)
		if word >= len(st.seen) {
			st.seen = slices.Grow(st.seen, word+1-len(st.seen))[:word+1]
		}
		if st.seen[word]&bit != 0 {
			return ar.corrupt("document %s has two chunks with index %d", c.DocumentID, c.Index)
		}
		st.seen[word] |= bit
		st.chunks++
		st.maxIndex = max(st.maxIndex, c.Index)
	case TypeImage:
		im := rec.Image
		if _, err := stateOf(ar, docs, im.DocumentID, im.ContentHash, im.Source); err != nil {
			return err
		}
	case TypeDocument:
		return checkDocument(ar, docs, rec.Document)
	}
	return nil
}

// stateOf returns the state of a document met in a chunk or image record,
// checking the record is of the same version and source as the others.
func stateOf(ar *Reader, docs map[string]*docState, id, hash, source string) (*docState, error) {
	st := docs[id]
	if st == nil {
		st = &docState{hash: hash, source: source, maxIndex: -1}
		docs[id] = st
	}
	switch {
	case st.record:
		return nil, ar.corrupt("a chunk or image of document %s after the document", id)
	case st.hash != hash:
		return nil, ar.corrupt("document %s has chunks or images of two versions (%s and %s)", id, st.hash, hash)
	case st.source != source:
		return nil, ar.corrupt("document %s has chunks or images of two sources (%s and %s)", id, st.source, source)
	}
	return st, nil
}

// checkDocument checks a document against its chunks.
func checkDocument(ar *Reader, docs map[string]*docState, d *Document) error {
	doc := d.Document
	st := docs[doc.ID]
	if st == nil {
		st = &docState{hash: doc.ContentHash, source: doc.Source, maxIndex: -1}
		docs[doc.ID] = st
	}
	switch {
	case st.record:
		return ar.corrupt("document %s appears twice", doc.ID)
	case st.hash != doc.ContentHash:
		return ar.corrupt("document %s is version %s but its chunks are of version %s", doc.ID, doc.ContentHash, st.hash)
	case st.source != doc.Source:
		return ar.corrupt("document %s has source %s but its chunks %s", doc.ID, doc.Source, st.source)
	case st.chunks != doc.Chunks || st.maxIndex >= doc.Chunks:
		return ar.corrupt("document %s records %d chunks but the archive holds %d of them", doc.ID, doc.Chunks, st.chunks)
	}
	st.record, st.seen = true, nil
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
