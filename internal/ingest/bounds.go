package ingest

import (
	"fmt"

	"ragd"
	"ragd/internal/ingest/document"
)

// Bounds limit one document at ingest, past what any real document
// reaches, so that a hostile one (50 MB of one-character lines) fails
// early instead of costing gigabytes of chunks. A zero field bounds
// nothing.
type Bounds struct {
	// MaxChunks is ingest.max_document_chunks.
	MaxChunks int
	// MaxTextBytes is ingest.max_document_text_bytes: the extracted text,
	// all blocks together.
	MaxTextBytes int64
}

// TextBytes is the size of a document's extracted text: its blocks'.
func TextBytes(doc *document.Loaded) int64 {
	var n int64
	for _, b := range doc.Blocks {
		n += int64(len(b.Text))
	}
	return n
}

// TextTooLarge is the error of text of n bytes, past max
// (ingest.max_document_text_bytes): KindTooLarge, 413 at a request,
// a job failed without retries.
func TextTooLarge(n, max int64) *ragd.Error {
	return &ragd.Error{Kind: ragd.KindTooLarge, Message: fmt.Sprintf(
		"the document has %d bytes of text, more than ingest.max_document_text_bytes (%d)", n, max)}
}

// tooManyChunks is the error of a document that makes at least n chunks,
// more than max (ingest.max_document_chunks).
func tooManyChunks(n, max int) *ragd.Error {
	return &ragd.Error{Kind: ragd.KindTooLarge, Message: fmt.Sprintf(
		"the document makes at least %d chunks, more than ingest.max_document_chunks (%d)", n, max)}
}

// ChunkBounded is Chunk within b: a document over b.MaxTextBytes is
// refused unchunked, one whose body tokens alone need more than
// b.MaxChunks chunks (each holds at most opt.Tokens of them) too, and the
// chunker stops as soon as it has made more than b.MaxChunks, so what it
// holds stays within the bound. Its errors are KindTooLarge and name the
// setting with the figures.
func ChunkBounded(doc *document.Loaded, opt ChunkOptions, b Bounds) ([]Piece, error) {
	if n := TextBytes(doc); b.MaxTextBytes > 0 && n > b.MaxTextBytes {
		return nil, TextTooLarge(n, b.MaxTextBytes)
	}
	c := newChunker(doc, opt, b.MaxChunks)
	if b.MaxChunks <= 0 {
		return c.run(doc), nil
	}
	tokens := 0
	for _, blk := range doc.Blocks {
		if blk.Kind != document.BlockHeading {
			tokens += CountTokens(blk.Text)
		}
	}
	if least := (tokens + c.opt.Tokens - 1) / c.opt.Tokens; least > b.MaxChunks {
		return nil, tooManyChunks(least, b.MaxChunks)
	}
	if out := c.run(doc); !c.full() {
		return out, nil
	}
	return nil, tooManyChunks(len(c.out), b.MaxChunks)
}
