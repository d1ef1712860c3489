package archive

import (
	"bufio"
	"bytes"
	"compress/flate"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"ragd"
)

// MaxRecordBytes bounds one record, so a hostile archive cannot make a
// reader hold an unbounded line: a chunk is a few kilobytes, a document
// with its vocabulary rarely more than a megabyte.
const MaxRecordBytes = 64 << 20

// Record is one record after the header; exactly one field is set, by Type.
type Record struct {
	Type     string
	Chunk    *Chunk
	Image    *Image
	Document *Document
}

// Reader reads an archive record by record, checking each as it goes and
// the trailer's counts at the end.
type Reader struct {
	br     *bufio.Reader
	header Header
	n      int // records read, the header included
	at     int // section of the last record
	counts Trailer
	ended  bool
}

// NewReader reads the archive's header from r. An archive of another
// format or version is an *Error.
func NewReader(r io.Reader) (*Reader, error) {
	gz, err := gzip.NewReader(r)
	if err != nil {
		switch {
		case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
			return nil, &Error{Truncated: true, Msg: "it ends before its first record"}
		case errors.Is(err, gzip.ErrHeader):
			return nil, &Error{Msg: "not a gzip stream"}
		}
		return nil, err
	}
	ar := &Reader{br: bufio.NewReaderSize(gz, 64<<10)}
	rec, err := ar.next()
	if err != nil {
		return nil, err
	}
	if rec.Type != TypeHeader || rec.Header == nil {
		return nil, ar.corrupt("the first record is %q, not the header", rec.Type)
	}
	h := *rec.Header
	if h.Format != Format {
		return nil, ar.corrupt("format %q is not %s", h.Format, Format)
	}
	if h.Version < MinVersion || h.Version > Version {
		return nil, &Error{Record: 1, Msg: fmt.Sprintf("format version %d; this ragd reads versions %d to %d", h.Version, MinVersion, Version)}
	}
	if h.Embedder.Name == "" || h.Embedder.Dimension <= 0 {
		return nil, ar.corrupt("the header names no embedder and dimension")
	}
	// Every id of the archive derives from it, and upload sources name it.
	if !ragd.ValidNamespace(h.KBName) {
		return nil, ar.fault(Place{Type: TypeHeader}, "kb_name", "kb_name %q is not a namespace: %s", Clip(h.KBName), ragd.NamespaceRule)
	}
	ar.header = h
	return ar, nil
}

// Header is the archive's header.
func (r *Reader) Header() Header { return r.header }

// Next returns the next record. After the last one it checks the trailer
// and that nothing follows it, and returns io.EOF; any problem is an
// *Error.
func (r *Reader) Next() (Record, error) {
	if r.ended {
		return Record{}, io.EOF
	}
	rec, err := r.next()
	if err != nil {
		return Record{}, err
	}
	s := section(rec.Type)
	switch {
	case s <= 0:
		return Record{}, r.corrupt("unexpected record type %q", rec.Type)
	case s < r.at:
		return Record{}, r.corrupt("a %s record after the %s section", rec.Type, sectionName(r.at))
	}
	r.at = s
	if rec.Type == TypeTrailer {
		return Record{}, r.finish(rec.Trailer)
	}
	return r.check(rec)
}

// finish checks the trailer's counts and that the stream ends with it.
func (r *Reader) finish(t *Trailer) error {
	if t == nil {
		return r.corrupt("a trailer record without its trailer")
	}
	if t.Documents != r.counts.Documents || t.Chunks != r.counts.Chunks || t.Images != r.counts.Images {
		return r.corrupt("the trailer counts %d documents, %d chunks and %d images but the archive holds %d, %d and %d",
			t.Documents, t.Chunks, t.Images, r.counts.Documents, r.counts.Chunks, r.counts.Images)
	}
	r.counts.Skipped = t.Skipped
	if _, err := r.br.ReadByte(); err == nil {
		return r.corrupt("data after the trailer")
	} else if !errors.Is(err, io.EOF) {
		return r.streamError(err)
	}
	r.ended = true
	return io.EOF
}

// Trailer is the trailer, once Next has returned io.EOF.
func (r *Reader) Trailer() Trailer { return r.counts }

// next reads and decodes one line.
func (r *Reader) next() (wireRecord, error) {
	line, err := r.line()
	if err != nil {
		return wireRecord{}, err
	}
	r.n++
	var rec wireRecord
	dec := json.NewDecoder(bytes.NewReader(line))
	if err := dec.Decode(&rec); err != nil {
		return wireRecord{}, r.corrupt("not a JSON record (%v)", err)
	}
	return rec, nil
}

// line reads one line, at most MaxRecordBytes long.
func (r *Reader) line() ([]byte, error) {
	var out []byte
	for {
		part, err := r.br.ReadSlice('\n')
		if len(out)+len(part) > MaxRecordBytes {
			return nil, &Error{Record: r.n + 1, Msg: fmt.Sprintf("a record longer than %d bytes", MaxRecordBytes)}
		}
		out = append(out, part...)
		switch {
		case err == nil:
			return out, nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF) && len(out) == 0:
			return nil, &Error{Truncated: true, Msg: fmt.Sprintf("it ends after %d records, without its trailer", r.n)}
		case errors.Is(err, io.EOF):
			return nil, &Error{Truncated: true, Msg: fmt.Sprintf("it ends inside record %d", r.n+1)}
		default:
			return nil, r.streamError(err)
		}
	}
}

// streamError describes a failure of the gzip stream under the records.
// A failure to read at all (a client gone, a size limit) is passed on as
// it is, for the caller to report.
func (r *Reader) streamError(err error) error {
	var damaged flate.CorruptInputError
	switch {
	case errors.Is(err, io.ErrUnexpectedEOF):
		return &Error{Truncated: true, Msg: fmt.Sprintf("the compressed stream ends after %d complete records", r.n)}
	case errors.Is(err, gzip.ErrChecksum), errors.Is(err, gzip.ErrHeader), errors.As(err, &damaged):
		return &Error{Msg: fmt.Sprintf("the compressed stream is damaged after %d records (%v)", r.n, err)}
	default:
		return err
	}
}

func (r *Reader) corrupt(format string, args ...any) error {
	return &Error{Record: r.n, Msg: fmt.Sprintf(format, args...)}
}

func sectionName(s int) string {
	for _, t := range []string{TypeHeader, TypeChunk, TypeImage, TypeDocument, TypeTrailer} {
		if section(t) == s {
			return t
		}
	}
	return "?"
}
