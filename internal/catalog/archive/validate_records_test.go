package archive

import (
	"bytes"
	"errors"
	"runtime"
	"strings"
	"testing"

	"ragd"
)

// validate checks an archive with no importer rules.
func validate(data []byte) error {
	_, err := Validate(bytes.NewReader(data), Rules{})
	return err
}

// refused checks each case's archive is refused with an error naming what
// it should: its record's place and the fault.
func refused(t *testing.T, cases map[string]struct {
	archive []byte
	want    []string
}) {
	t.Helper()
	for name, c := range cases {
		err := validate(c.archive)
		if err == nil {
			t.Errorf("%s: accepted, want an error containing %q", name, c.want)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: %v, want it to contain %q", name, err, w)
			}
		}
	}
}

// one is an archive of document a with one chunk, both passed through
// edit first.
func one(t *testing.T, edit func(c *Chunk, d *Document)) []byte {
	c, d := chunk("a", 0), document("a", 1)
	edit(c, d)
	return build(t, func(w *Writer) error {
		_ = w.Chunk(c)
		return w.Document(d)
	})
}

// Ids are those ragd derives: a document's from its namespace and source,
// a chunk's and an image's from their document, version and index. An
// archive naming anything else is refused where the id is met, so a
// forged id never reaches the store or the registry (document ids "*"
// and "../../../etc" were once registered; a chunk id "../../x" passed the
// upload and failed in the job).
func TestValidateRefusesForgedIDs(t *testing.T) {
	forged := func(doc string) func(c *Chunk, d *Document) {
		return func(c *Chunk, d *Document) { c.DocumentID, d.Document.ID = doc, doc }
	}
	refused(t, map[string]struct {
		archive []byte
		want    []string
	}{
		"document id *":  {one(t, forged("*")), []string{"record 2", `chunk 0 of document "*"`, "document_id"}},
		"document id ..": {one(t, forged("../../../etc")), []string{"record 2", `document "../../../etc"`, "document_id"}},
		"chunk id ../../x": {one(t, func(c *Chunk, _ *Document) { c.ID = "../../x" }),
			[]string{"record 2", "chunk 0 of document " + id("a"), `id "../../x"`}},
		"chunk id of another index": {one(t, func(c *Chunk, _ *Document) { c.ID = ragd.ChunkID(c.DocumentID, c.ContentHash, 1) }),
			[]string{"chunk 0 of document " + id("a"), "id"}},
		"content hash not sha256": {one(t, func(c *Chunk, d *Document) {
			c.ContentHash, d.Document.ContentHash = "h-a", "h-a"
			c.ID = ragd.ChunkID(c.DocumentID, c.ContentHash, c.Index)
		}), []string{"chunk 0 of document " + id("a"), "content_hash"}},
		"document id of another source": {one(t, func(_ *Chunk, d *Document) { d.Document.ID = id("b") }),
			[]string{"record 3", "document_id"}},
		"image id": {build(t, func(w *Writer) error {
			_ = w.Chunk(chunk("a", 0))
			im := image("a", 0)
			im.ID = "im"
			_ = w.Image(im)
			return w.Document(document("a", 1))
		}), []string{"record 3", "image 0 of document " + id("a"), `id "im"`}},
	})
	var buf bytes.Buffer
	h := header()
	h.KBName = "../x"
	w, _ := NewWriter(&buf, h)
	_ = w.Close()
	if err := validate(buf.Bytes()); err == nil || !strings.Contains(err.Error(), "kb_name") {
		t.Errorf("header kb_name ../x: %v, want it refused", err)
	}
}

// A document without chunks is refused: ragd makes none (an ingest
// refuses a source without text), and nothing could find it (one of
// source file:///etc/shadow was once registered).
func TestValidateRefusesDocumentWithoutChunks(t *testing.T) {
	d := document("shadow", 0)
	d.Document.Source, d.Document.ID = "file:///etc/shadow", ragd.DocumentID("books", "file:///etc/shadow")
	refused(t, map[string]struct {
		archive []byte
		want    []string
	}{
		"no chunks": {build(t, func(w *Writer) error { return w.Document(d) }), []string{"record 2", "document " + d.Document.ID, "no chunks"}},
	})
}

// Two documents of one source are refused, whatever their ids: a source
// is one document, cited once.
func TestValidateRefusesSharedSource(t *testing.T) {
	other := ragd.DocumentID("books", "file:///docs/elsewhere.txt")
	refused(t, map[string]struct {
		archive []byte
		want    []string
	}{
		"same source, other id": {build(t, func(w *Writer) error {
			c := chunk("a", 0)
			c.DocumentID, c.ID = other, ragd.ChunkID(other, c.ContentHash, 0)
			d := document("a", 1)
			d.Document.ID = other
			_ = w.Chunk(chunk("a", 0))
			_ = w.Chunk(c)
			_ = w.Document(document("a", 1))
			return w.Document(d)
		}), []string{"record 3", "document " + other, "document_id"}},
		"same source, same id": {build(t, func(w *Writer) error {
			_ = w.Chunk(chunk("a", 0))
			_ = w.Document(document("a", 1))
			return w.Document(document("a", 1))
		}), []string{"record 4", "appears twice"}},
	})
}

// Every vector element is a finite float32 number: encoding/json would
// read a null as 0 and the vector as a valid one.
func TestValidateVectors(t *testing.T) {
	plain := string(gunzip(t, build(t, nil)))
	edit := func(old, new string) []byte {
		if !strings.Contains(plain, old) {
			t.Fatalf("%q not in the archive", old)
		}
		return gz(t, strings.Replace(plain, old, new, 1))
	}
	refused(t, map[string]struct {
		archive []byte
		want    []string
	}{
		"null element":   {edit(`"vector":[0.1,`, `"vector":[null,`), []string{"record 2", "chunk 2 of document " + id("a"), "vector", "element 0 is null"}},
		"null last":      {edit(`,0.33333334]`, `,null]`), []string{"element 2 is null"}},
		"string element": {edit(`"vector":[0.1,`, `"vector":["0.1",`), []string{"element 0 is not a number"}},
		"out of range":   {edit(`"vector":[0.1,`, `"vector":[1e39,`), []string{"vector"}},
		"null vector":    {edit(`"vector":[0.1,-0.2,0.33333334]`, `"vector":null`), []string{"0 numbers", "dimension 3"}},
		"too many":       {edit(`"vector":[0.1,`, `"vector":[0.1,0.1,`), []string{"not the header's dimension 3"}},
		"image null":     {edit(`"vector":[1,0,0]`, `"vector":[1,null,0]`), []string{"image 0 of document " + id("a"), "element 1 is null"}},
	})
}

// Counts and positions are never negative, and a vocabulary counts the
// document's chunks: ragd makes no other.
func TestValidateCounts(t *testing.T) {
	imageWith := func(edit func(im *Image)) []byte {
		return build(t, func(w *Writer) error {
			_ = w.Chunk(chunk("a", 0))
			im := image("a", 0)
			edit(im)
			_ = w.Image(im)
			return w.Document(document("a", 1))
		})
	}
	refused(t, map[string]struct {
		archive []byte
		want    []string
	}{
		"chunk page":      {one(t, func(c *Chunk, _ *Document) { c.Page = -1 }), []string{"chunk 0 of document " + id("a"), "page"}},
		"chunk level":     {one(t, func(c *Chunk, _ *Document) { c.Level = -2 }), []string{"level"}},
		"image page":      {imageWith(func(im *Image) { im.Page = -1 }), []string{"image 0 of document " + id("a"), "page"}},
		"image position":  {imageWith(func(im *Image) { im.Position = -1 }), []string{"position"}},
		"image width":     {imageWith(func(im *Image) { im.Width = -640 }), []string{"width"}},
		"image index":     {imageWith(func(im *Image) { im.Index = -1; im.ID = ragd.ImageID(im.DocumentID, im.ContentHash, -1) }), []string{"image_index"}},
		"file size":       {one(t, func(_ *Chunk, d *Document) { d.Document.FileSize = -1 }), []string{"document " + id("a"), "file_size"}},
		"commit":          {one(t, func(_ *Chunk, d *Document) { d.Document.Commit = "HEAD~1" }), []string{"document " + id("a"), "commit"}},
		"web url":         {one(t, func(_ *Chunk, d *Document) { d.Document.WebURL = "javascript:alert(1)" }), []string{"document " + id("a"), "web_url"}},
		"document chunks": {one(t, func(_ *Chunk, d *Document) { d.Document.Chunks = -1 }), []string{"document " + id("a"), "chunks"}},
		"vocabulary chunks": {one(t, func(_ *Chunk, d *Document) { d.Vocabulary.Chunks = -1 }),
			[]string{"document " + id("a"), "vocabulary"}},
		"vocabulary df": {one(t, func(_ *Chunk, d *Document) { d.Vocabulary.DF["text"] = -1 }),
			[]string{"document " + id("a"), "vocabulary", "text"}},
		"vocabulary df over chunks": {one(t, func(_ *Chunk, d *Document) { d.Vocabulary.DF["text"] = 2 }),
			[]string{"vocabulary", "text"}},
	})
}

// A chunk index costs Validate memory by the chunks it has met, not by
// the index an archive names: many documents of one chunk at a huge
// index each once made it hold 2 MiB per document.
func TestValidateIndexMemory(t *testing.T) {
	const docs = 100
	data := build(t, func(w *Writer) error {
		for d := range docs {
			name := strings.Repeat("x", d+1)
			_ = w.Chunk(chunk(name, maxChunkIndex-1))
		}
		for d := range docs {
			w.Skip(id(strings.Repeat("x", d+1)))
		}
		return nil
	})
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	if err := validate(data); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 16<<20 {
		t.Fatalf("validating %d chunks (%d bytes) allocated %d MiB", docs, len(data), grew>>20)
	}
}

// A rule's refusal is placed in its record: number, type, document,
// index and the field the rule named.
func TestValidateRules(t *testing.T) {
	rules := Rules{Image: func(im *Image) error { return Refuse("caption", "caption %q refused", im.Caption) }}
	_, err := Validate(bytes.NewReader(build(t, nil)), rules)
	want := "archive record 6 (image 0 of document " + id("a") + `, field caption) is refused: caption "fig" refused`
	if err == nil || err.Error() != want {
		t.Fatalf("refused image: %v, want %s", err, want)
	}
	var e *Error
	if !errors.As(err, &e) || e.Record != 6 || e.At == nil || e.At.Type != TypeImage || e.At.Field != "caption" {
		t.Fatalf("refusal %+v", e)
	}
}
