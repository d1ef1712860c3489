package archive

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
	"testing"
	"time"

	"ragd"
)

func header() Header {
	return Header{KBName: "books", Embedder: Embedder{Name: "glove-test", Dimension: 3}, RagdVersion: ragd.Version,
		CreatedAt: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
}

// The fixtures are documents of namespace books named by a short name:
// their ids, hashes and sources are those ragd derives from the name.
func id(doc string) string     { return ragd.DocumentID("books", source(doc)) }
func source(doc string) string { return "file:///docs/" + doc + ".txt" }
func hash(doc string) string   { return ragd.ContentHash([]byte(doc)) }

func chunk(doc string, i int) *Chunk {
	return ChunkOf(ragd.Chunk{ID: ragd.ChunkID(id(doc), hash(doc), i), DocumentID: id(doc), Source: source(doc), SourceType: ragd.SourceText,
		ContentHash: hash(doc), Index: i, Text: fmt.Sprintf("text %d of %s", i, doc), Path: "T > S", Level: 2,
		Summary: "S", Tags: []string{"a"}, Timestamp: time.Date(2026, 1, 1, 0, 0, 0, 123456789, time.UTC),
		Related: "kin words", Vector: []float32{0.1, -0.2, 1.0 / 3}})
}

// image is picture i of doc.
func image(doc string, i int) *Image {
	return ImageOf(ragd.Image{ID: ragd.ImageID(id(doc), hash(doc), i), DocumentID: id(doc), ContentHash: hash(doc), Source: source(doc),
		Index: i, Caption: "fig", Vector: []float32{1, 0, 0}})
}

func document(doc string, chunks int) *Document {
	return &Document{Document: ragd.Document{ID: id(doc), Namespace: "books", Source: source(doc), SourceType: ragd.SourceText,
		ContentHash: hash(doc), Title: doc, Chunks: chunks}, Vocabulary: &Vocabulary{Chunks: chunks, DF: map[string]int{"text": chunks}}}
}

// version makes c a chunk of another version of its document.
func version(c *Chunk, v string) *Chunk {
	c.ContentHash = ragd.ContentHash([]byte(v))
	c.ID = ragd.ChunkID(c.DocumentID, c.ContentHash, c.Index)
	return c
}

// build writes an archive of two documents (three chunks and one image
// for a, one chunk for b) through edit, which may add or drop records.
func build(t *testing.T, edit func(w *Writer) error) []byte {
	t.Helper()
	var buf bytes.Buffer
	w, err := NewWriter(&buf, header())
	if err != nil {
		t.Fatal(err)
	}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	if edit == nil {
		edit = func(w *Writer) error {
			for _, c := range []*Chunk{chunk("a", 2), chunk("b", 0), chunk("a", 0), chunk("a", 1)} {
				must(w.Chunk(c))
			}
			must(w.Image(image("a", 0)))
			must(w.Document(document("a", 3)))
			return w.Document(document("b", 1))
		}
	}
	must(edit(w))
	must(w.Close())
	return buf.Bytes()
}

// An archive reads back record for record, vectors bit for bit.
func TestRoundTrip(t *testing.T) {
	data := build(t, nil)
	r, err := NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	if h := r.Header(); h.Format != Format || h.Version != Version || h.KBName != "books" || h.Embedder != header().Embedder {
		t.Fatalf("header %+v", h)
	}
	var types []string
	var first *Chunk
	for {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		types = append(types, rec.Type)
		if first == nil && rec.Chunk != nil {
			first = rec.Chunk
		}
	}
	if want := []string{"chunk", "chunk", "chunk", "chunk", "image", "document", "document"}; !reflect.DeepEqual(types, want) {
		t.Fatalf("records %v, want %v", types, want)
	}
	if !reflect.DeepEqual(first, chunk("a", 2)) {
		t.Fatalf("chunk read back as %+v", first)
	}
	if tr := r.Trailer(); tr.Chunks != 4 || tr.Images != 1 || tr.Documents != 2 {
		t.Fatalf("trailer %+v", tr)
	}
	sum, err := Validate(bytes.NewReader(data), Rules{})
	if err != nil || len(sum.Skipped) != 0 || sum.Trailer.Chunks != 4 {
		t.Fatalf("validate: %+v, %v", sum, err)
	}
}

// An archive cut anywhere is refused as truncated, never read as a
// shorter whole.
func TestTruncatedAnywhere(t *testing.T) {
	data := build(t, nil)
	for cut := 0; cut < len(data); cut++ {
		_, err := Validate(bytes.NewReader(data[:cut]), Rules{})
		var e *Error
		if !errors.As(err, &e) {
			t.Fatalf("cut at %d of %d: %v, want an archive error", cut, len(data), err)
		}
		if !e.Truncated && cut > 20 { // a cut inside the gzip header may read as not gzip
			t.Fatalf("cut at %d of %d: %v, want truncated", cut, len(data), err)
		}
	}
}

// The records without the gzip footer, or without the trailer in a whole
// gzip stream, are truncated too.
func TestTruncatedRecords(t *testing.T) {
	plain := gunzip(t, build(t, nil))
	lines := strings.SplitAfter(string(plain), "\n")
	withoutTrailer := strings.Join(lines[:len(lines)-2], "")
	_, err := Validate(bytes.NewReader(gz(t, withoutTrailer)), Rules{})
	if err == nil || !strings.Contains(err.Error(), "truncated") || !strings.Contains(err.Error(), "without its trailer") {
		t.Fatalf("no trailer: %v", err)
	}
	half := withoutTrailer[:len(withoutTrailer)-10]
	if _, err := Validate(bytes.NewReader(gz(t, half)), Rules{}); err == nil || !strings.Contains(err.Error(), "ends inside record") {
		t.Fatalf("cut inside a record: %v", err)
	}
}

// Damage is refused with a message saying what is wrong.
func TestCorruptArchives(t *testing.T) {
	plain := string(gunzip(t, build(t, nil)))
	cases := map[string]struct {
		archive []byte
		want    string
	}{
		"not gzip":      {[]byte("hello, this is no archive at all"), "not a gzip stream"},
		"flipped byte":  {flip(build(t, nil)), "corrupt"},
		"garbage after": {append(build(t, nil), []byte("trailing garbage, not gzip")...), "corrupt"},
		"other format":  {gz(t, strings.Replace(plain, `"format":"ragd-archive"`, `"format":"zip"`, 1)), `format "zip"`},
		"newer version": {gz(t, strings.Replace(plain, `"version":2`, `"version":3`, 1)), "format version 3; this ragd reads versions 1 to 2"},
		"older version": {gz(t, strings.Replace(plain, `"version":2`, `"version":0`, 1)), "format version 0; this ragd reads versions 1 to 2"},
		"bad json":      {gz(t, strings.Replace(plain, `{"type":"image"`, `{"type":"image",,`, 1)), "not a JSON record"},
		"wrong count":   {gz(t, strings.Replace(plain, `"chunks":4,`, `"chunks":5,`, 1)), "the trailer counts"},
		"short vector":  {gz(t, strings.Replace(plain, `"vector":[1,0,0]`, `"vector":[1,0]`, 1)), "not the header's dimension 3"},
		"chunk after documents": {gz(t, beforeTrailer(plain, strings.Replace(strings.SplitAfter(plain, "\n")[1], id("a"), id("z"), 1))),
			"a chunk record after the document section"},
	}
	for name, c := range cases {
		_, err := Validate(bytes.NewReader(c.archive), Rules{})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error containing %q", name, err, c.want)
		}
	}
}

// Validate checks documents against their chunks.
func TestValidateDocuments(t *testing.T) {
	cases := map[string]struct {
		edit func(w *Writer) error
		want string
	}{
		"missing chunk": {func(w *Writer) error {
			_ = w.Chunk(chunk("a", 0))
			return w.Document(document("a", 2))
		}, "records 2 chunks but the archive holds 1"},
		"duplicate chunk": {func(w *Writer) error {
			_ = w.Chunk(chunk("a", 0))
			_ = w.Chunk(chunk("a", 0))
			return w.Document(document("a", 2))
		}, "two chunks with index 0"},
		"index out of range": {func(w *Writer) error {
			_ = w.Chunk(chunk("a", 0))
			_ = w.Chunk(chunk("a", 5))
			return w.Document(document("a", 2))
		}, "records 2 chunks"},
		"two versions": {func(w *Writer) error {
			_ = w.Chunk(chunk("a", 0))
			_ = w.Chunk(version(chunk("a", 1), "other"))
			return w.Document(document("a", 2))
		}, "two versions"},
		"twice": {func(w *Writer) error {
			_ = w.Chunk(chunk("a", 0))
			_ = w.Document(document("a", 1))
			return w.Document(document("a", 1))
		}, "appears twice"},
		"unlisted orphan": {func(w *Writer) error { return w.Chunk(chunk("gone", 0)) }, "no document record"},
		"skipped but there": {func(w *Writer) error {
			_ = w.Chunk(chunk("a", 0))
			w.Skip(id("a"))
			return w.Document(document("a", 1))
		}, "lists document " + id("a") + " as left out"},
	}
	for name, c := range cases {
		_, err := Validate(bytes.NewReader(build(t, c.edit)), Rules{})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", name, err, c.want)
		}
	}
	// Chunks of a document the writer skipped are allowed, and reported.
	sum, err := Validate(bytes.NewReader(build(t, func(w *Writer) error {
		_ = w.Chunk(chunk("gone", 0))
		w.Skip(id("gone"))
		w.Skip(id("changed-without-chunks-written"))
		_ = w.Chunk(chunk("a", 0))
		return w.Document(document("a", 1))
	})), Rules{})
	if err != nil || !sum.Skipped[id("gone")] || len(sum.Skipped) != 1 || len(sum.Trailer.Skipped) != 2 {
		t.Fatalf("skipped document: %+v, %v", sum, err)
	}
}

// The header rule sees the header first and its refusal ends the read.
func TestValidateAccept(t *testing.T) {
	refused := errors.New("refused")
	var seen Header
	_, err := Validate(bytes.NewReader(build(t, nil)), Rules{Header: func(h Header) error { seen = h; return refused }})
	if !errors.Is(err, refused) || seen.Embedder.Name != "glove-test" {
		t.Fatalf("accept: %v, header %+v", err, seen)
	}
}

// A record longer than MaxRecordBytes is refused without being held.
func TestRecordBound(t *testing.T) {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	fmt.Fprintf(zw, `{"type":"header","header":{"format":"ragd-archive","version":1,"kb_name":"x","embedder":{"name":"x","dimension":1}}}`+"\n")
	big := bytes.Repeat([]byte("a"), 1<<20)
	for range MaxRecordBytes/len(big) + 1 {
		_, _ = zw.Write(big)
	}
	_ = zw.Close()
	if _, err := Validate(&buf, Rules{}); err == nil || !strings.Contains(err.Error(), "longer than") {
		t.Fatalf("huge record: %v", err)
	}
}

func gz(t *testing.T, s string) []byte {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	_, _ = zw.Write([]byte(s))
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func gunzip(t *testing.T, b []byte) []byte {
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	out, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// beforeTrailer inserts line before the trailer of the plain archive s.
func beforeTrailer(s, line string) string {
	i := strings.LastIndex(s, `{"type":"trailer"`)
	return s[:i] + line + s[i:]
}

// flip damages one byte in the middle of the compressed data.
func flip(b []byte) []byte {
	out := bytes.Clone(b)
	out[len(out)/2] ^= 0xff
	return out
}
