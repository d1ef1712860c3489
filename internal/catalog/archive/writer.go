package archive

import (
	"bufio"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
)

// Writer writes an archive record by record; it holds one record at a
// time, whatever the archive's size.
type Writer struct {
	gz      *gzip.Writer
	buf     *bufio.Writer
	enc     *json.Encoder
	at      int // section of the last record written
	counts  Trailer
	skipped []string
}

// NewWriter starts an archive on w with its header; Format and Version are
// filled in.
func NewWriter(w io.Writer, h Header) (*Writer, error) {
	gz := gzip.NewWriter(w)
	buf := bufio.NewWriterSize(gz, 64<<10)
	enc := json.NewEncoder(buf)
	enc.SetEscapeHTML(false)
	aw := &Writer{gz: gz, buf: buf, enc: enc}
	h.Format, h.Version = Format, Version
	return aw, aw.write(record{Type: TypeHeader, Header: &h})
}

// Chunk writes a chunk. Chunks come before every image and document.
func (w *Writer) Chunk(c *Chunk) error {
	w.counts.Chunks++
	return w.write(record{Type: TypeChunk, Chunk: c})
}

// Image writes an image, after the chunks and before the documents.
func (w *Writer) Image(im *Image) error {
	w.counts.Images++
	return w.write(record{Type: TypeImage, Image: im})
}

// Document writes a document, after every chunk and image.
func (w *Writer) Document(d *Document) error {
	w.counts.Documents++
	return w.write(record{Type: TypeDocument, Document: d})
}

// Skip records that a document whose chunks were written is left out.
func (w *Writer) Skip(documentID string) { w.skipped = append(w.skipped, documentID) }

// Close writes the trailer and ends the gzip stream; it does not close the
// underlying writer. An archive not closed lacks both, so a reader refuses
// it as truncated.
func (w *Writer) Close() error {
	t := w.counts
	t.Skipped = w.skipped
	if t.Skipped == nil {
		t.Skipped = []string{}
	}
	if err := w.write(record{Type: TypeTrailer, Trailer: &t}); err != nil {
		return err
	}
	if err := w.buf.Flush(); err != nil {
		return err
	}
	return w.gz.Close()
}

// Flush pushes what is buffered to the underlying writer (a client
// downloading the archive sees it progress).
func (w *Writer) Flush() error {
	if err := w.buf.Flush(); err != nil {
		return err
	}
	return w.gz.Flush()
}

func (w *Writer) write(r record) error {
	s := section(r.Type)
	if s < w.at {
		return fmt.Errorf("archive: %s record after a later section", r.Type)
	}
	w.at = s
	return w.enc.Encode(r)
}
