package api_test

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"ragd"
	"ragd/internal/catalog/archive"
	"ragd/internal/ingest/document"
	"ragd/internal/testkit/stack"
)

// editArchive rewrites an archive through edit, which may change the
// header and the records, drop records or add some (keeping the sections
// in order), and writes a new trailer counting them.
func editArchive(t *testing.T, data []byte, edit func(h *archive.Header, recs []archive.Record) []archive.Record) []byte {
	t.Helper()
	r, err := archive.NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	var recs []archive.Record
	for {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		recs = append(recs, rec)
	}
	h := r.Header()
	recs = edit(&h, recs)
	var buf bytes.Buffer
	w, err := archive.NewWriter(&buf, h)
	if err != nil {
		t.Fatal(err)
	}
	for _, rec := range recs {
		switch {
		case rec.Chunk != nil:
			err = w.Chunk(rec.Chunk)
		case rec.Image != nil:
			err = w.Image(rec.Image)
		default:
			err = w.Document(rec.Document)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	for _, id := range r.Trailer().Skipped {
		w.Skip(id)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// editPlain replaces the first match of re in the archive's JSON lines:
// for what the archive's Go types cannot hold (a null in a vector).
func editPlain(t *testing.T, data []byte, re, with string) []byte {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	plain, _ := io.ReadAll(zr)
	loc := regexp.MustCompile(re).FindIndex(plain)
	if loc == nil {
		t.Fatalf("%s matches nothing in the archive", re)
	}
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	_, _ = zw.Write(slices.Concat(plain[:loc[0]], []byte(with), plain[loc[1]:]))
	_ = zw.Close()
	return buf.Bytes()
}

// firstDocument is the first document record and its chunks.
func firstDocument(recs []archive.Record) (*archive.Document, []*archive.Chunk) {
	var d *archive.Document
	for _, r := range recs {
		if r.Document != nil {
			d = r.Document
			break
		}
	}
	var chunks []*archive.Chunk
	for _, r := range recs {
		if r.Chunk != nil && r.Chunk.DocumentID == d.Document.ID {
			chunks = append(chunks, r.Chunk)
		}
	}
	return d, chunks
}

// resource moves a document and its chunks to another source and id (as
// derived from it in namespace kb), so that only the source is at fault.
func resource(kb string, d *archive.Document, chunks []*archive.Chunk, source string, typ ragd.SourceType) {
	id := ragd.DocumentID(kb, source)
	d.Document.ID, d.Document.Source, d.Document.SourceType = id, source, typ
	for _, c := range chunks {
		c.DocumentID, c.Source, c.SourceType, c.ID = id, source, typ, ragd.ChunkID(id, c.ContentHash, c.Index)
	}
}

// importCase is an edited archive and what its refusal must name: the
// record type and field of the detail's loc, and words of its message.
type importCase struct {
	name        string
	archive     []byte
	typ, field  string
	msgContains []string
}

// sourceArchive indexes two tagged texts into namespace src, exports it
// and empties src, so the cases import into the namespace their ids
// were derived in.
func sourceArchive(t *testing.T, s *stack.Stack) []byte {
	t.Helper()
	indexText(t, s, "src", "Lighthouses guide ships past dangerous rocks at night.", "sea")
	indexText(t, s, "src", "Tides rise and fall twice a day, pulled by the moon.", "sea")
	data := exportKB(t, s, "src")
	if r := s.Do(t, http.MethodDelete, "/tools/rag_clear?kb_name=src", nil); r.Status != http.StatusOK {
		t.Fatalf("clear: %d %s", r.Status, r.Body)
	}
	return data
}

// expectRefused uploads each case and checks the 422: its loc points at
// body > archive > records > <line> > <type> > <field>, and its message
// names the record. Nothing may be queued, kept or written.
func expectRefused(t *testing.T, s *stack.Stack, cases []importCase) {
	t.Helper()
	for _, c := range cases {
		resp := doRaw(t, s, http.MethodPost, "/kb/src/import", "application/gzip", "", bytes.NewReader(c.archive))
		var body struct {
			Detail []ragd.FieldError `json:"detail"`
		}
		_ = json.Unmarshal(resp.Body, &body)
		if resp.Status != http.StatusUnprocessableEntity || len(body.Detail) != 1 {
			t.Errorf("%s: %d %.400s, want 422", c.name, resp.Status, resp.Body)
			continue
		}
		fe := body.Detail[0]
		if len(fe.Loc) < 6 || !slices.Equal(fe.Loc[:3], []string{"body", "archive", "records"}) || fe.Loc[4] != c.typ || fe.Loc[5] != c.field {
			t.Errorf("%s: loc %q, want body > archive > records > n > %s > %s", c.name, fe.Loc, c.typ, c.field)
		}
		for _, w := range c.msgContains {
			if !strings.Contains(fe.Msg, w) {
				t.Errorf("%s: %q lacks %q", c.name, fe.Msg, w)
			}
		}
	}
	if n := len(documents(t, s, "src")); n != 0 || s.ChunkCount(t, "src", "") != 0 {
		t.Errorf("refused imports left %d documents, %d chunks", n, s.ChunkCount(t, "src", ""))
	}
	if entries, _ := os.ReadDir(filepath.Join(s.Config.Data.Dir, "imports")); len(entries) != 0 {
		t.Errorf("refused archives left on disk: %v", entries)
	}
}

// An import is held to an ingest's limits on what a document carries:
// titles and tags (ragd.MaxTitleChars, MaxTags, MaxTagChars), counted
// in characters. One over is a 422 naming the record, before any job;
// at the limits the archive imports (an edited archive once stored a
// 5,000-character title, 1,000 tags, a 100,000-character tag and a 30 MiB
// title; with the last, GET /documents answered 31.5 MB). A chunk's text
// is held to ragd.MaxChunkTextBytes, which the chunker never exceeds:
// chunks of 30 MiB were accepted, and the job's writes failed in Weaviate
// (ResourceExhausted) and opened the breaker every search shares.
func TestImportAppliesIngestLimits(t *testing.T) {
	t.Parallel()
	s := archiveStack(t, nil)
	data := sourceArchive(t, s)
	doc := func(edit func(d *archive.Document, chunks []*archive.Chunk)) []byte {
		return editArchive(t, data, func(_ *archive.Header, recs []archive.Record) []archive.Record {
			d, chunks := firstDocument(recs)
			edit(d, chunks)
			return recs
		})
	}
	tags := func(n, chars int) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = fmt.Sprintf("%0*d", chars, i)
		}
		return out
	}
	var id string
	_ = editArchive(t, data, func(_ *archive.Header, recs []archive.Record) []archive.Record {
		d, _ := firstDocument(recs)
		id = d.Document.ID
		return recs
	})
	expectRefused(t, s, []importCase{
		{"title of 5,000 characters", doc(func(d *archive.Document, _ []*archive.Chunk) { d.Document.Title = strings.Repeat("t", 5000) }),
			"document", "title", []string{"document " + id, "5000 characters", fmt.Sprint(ragd.MaxTitleChars)}},
		{"title one character over", doc(func(d *archive.Document, _ []*archive.Chunk) {
			d.Document.Title = strings.Repeat("é", ragd.MaxTitleChars+1)
		}), "document", "title", []string{"document " + id}},
		{"title of 30 MiB", doc(func(d *archive.Document, _ []*archive.Chunk) { d.Document.Title = strings.Repeat("t", 30<<20) }),
			"document", "title", []string{"document " + id}},
		{"title with a bidi override", doc(func(d *archive.Document, _ []*archive.Chunk) { d.Document.Title = "report\u202Efdp.exe" }),
			"document", "title", []string{"document " + id, "U+202E"}},
		{"1,000 tags", doc(func(d *archive.Document, _ []*archive.Chunk) { d.Document.Tags = tags(1000, 4) }),
			"document", "tags", []string{"document " + id, "1000 tags"}},
		{"one tag over", doc(func(d *archive.Document, _ []*archive.Chunk) { d.Document.Tags = tags(ragd.MaxTags+1, 4) }),
			"document", "tags", []string{"document " + id}},
		{"tag of 100,000 characters", doc(func(d *archive.Document, _ []*archive.Chunk) {
			d.Document.Tags = []string{strings.Repeat("x", 100_000)}
		}),
			"document", "tags", []string{"document " + id, fmt.Sprint(ragd.MaxTagChars)}},
		{"blank tag", doc(func(d *archive.Document, _ []*archive.Chunk) { d.Document.Tags = []string{" "} }),
			"document", "tags", []string{"document " + id}},
		{"chunk of 1,000 tags", doc(func(_ *archive.Document, chunks []*archive.Chunk) { chunks[0].Tags = tags(1000, 4) }),
			"chunk", "tags", []string{"chunk 0 of document " + id}},
		{"chunk text of 30 MiB", doc(func(_ *archive.Document, chunks []*archive.Chunk) { chunks[0].Text = strings.Repeat("w", 30<<20) }),
			"chunk", "text", []string{"chunk 0 of document " + id, fmt.Sprint(30 << 20), fmt.Sprint(ragd.MaxChunkTextBytes)}},
		{"chunk text one byte over", doc(func(_ *archive.Document, chunks []*archive.Chunk) {
			chunks[0].Text = strings.Repeat("w", ragd.MaxChunkTextBytes+1)
		}), "chunk", "text", []string{"chunk 0 of document " + id}},
	})

	// At the limits, an archive imports.
	atLimits := doc(func(d *archive.Document, chunks []*archive.Chunk) {
		d.Document.Title = strings.Repeat("é", ragd.MaxTitleChars)
		d.Document.Tags = tags(ragd.MaxTags, ragd.MaxTagChars)
		chunks[0].Tags = d.Document.Tags
		chunks[0].Text = strings.Repeat("w", ragd.MaxChunkTextBytes)
	})
	if _, job := importKB(t, s, "src", atLimits); job.Status != ragd.JobCompleted {
		t.Fatalf("import at the limits: %s %s", job.Status, job.Error)
	}
	if d := docByID(t, s, "src", id); len([]rune(d.Title)) != ragd.MaxTitleChars || len(d.Tags) != ragd.MaxTags {
		t.Fatalf("imported at the limits: %d characters of title, %d tags", len([]rune(d.Title)), len(d.Tags))
	}
}

// An import takes only records of the shape ragd makes: ids derived as
// ragd derives them, well-formed sources of the kinds ragd indexes, each
// source and id once, documents with chunks, vectors of finite numbers
// only, counts never negative. Anything else is a 422 naming the record,
// before any job (document ids "*" and "../../../etc" were once
// registered; a document of 0 chunks and source file:///etc/shadow was
// accepted; two documents shared one source; a chunk id "../../x" passed
// the upload and failed the job after its retries; a null vector element
// was read as 0).
func TestImportChecksRecords(t *testing.T) {
	t.Parallel()
	s := archiveStack(t, nil)
	data := sourceArchive(t, s)
	edit := func(e func(d *archive.Document, chunks []*archive.Chunk, recs []archive.Record) []archive.Record) []byte {
		return editArchive(t, data, func(_ *archive.Header, recs []archive.Record) []archive.Record {
			d, chunks := firstDocument(recs)
			return e(d, chunks, recs)
		})
	}
	docID := func(forged string) []byte {
		return edit(func(d *archive.Document, chunks []*archive.Chunk, recs []archive.Record) []archive.Record {
			d.Document.ID = forged
			for _, c := range chunks {
				c.DocumentID = forged
			}
			return recs
		})
	}
	source := func(src string, typ ragd.SourceType) []byte {
		return edit(func(d *archive.Document, chunks []*archive.Chunk, recs []archive.Record) []archive.Record {
			resource("src", d, chunks, src, typ)
			return recs
		})
	}
	var id, hash, secondID string
	var second *archive.Document
	_ = edit(func(d *archive.Document, _ []*archive.Chunk, recs []archive.Record) []archive.Record {
		id, hash = d.Document.ID, d.Document.ContentHash
		for _, r := range recs {
			if r.Document != nil && r.Document.Document.ID != id {
				second, secondID = r.Document, r.Document.Document.ID
			}
		}
		return recs
	})
	if second == nil {
		t.Fatal("the archive holds one document")
	}
	shadow := ragd.DocumentID("src", "file:///etc/shadow")
	vector := make([]float32, s.Search.Embedder.Dimension())
	vector[0] = 1
	expectRefused(t, s, []importCase{
		{"document id *", docID("*"), "chunk", "document_id", []string{`chunk 0 of document "*"`}},
		{"document id ../../../etc", docID("../../../etc"), "chunk", "document_id", []string{`chunk 0 of document "../../../etc"`}},
		{"no chunks, source file:///etc/shadow", edit(func(d *archive.Document, _ []*archive.Chunk, recs []archive.Record) []archive.Record {
			empty := &archive.Document{Document: ragd.Document{ID: shadow, Namespace: "src", Source: "file:///etc/shadow",
				SourceType: ragd.SourceText, ContentHash: ragd.ContentHash(nil), Title: "shadow"}}
			return append(recs, archive.Record{Type: archive.TypeDocument, Document: empty})
		}), "document", "chunks", []string{"document " + shadow, "no chunks"}},
		{"two documents, one source", editArchive(t, data, func(_ *archive.Header, recs []archive.Record) []archive.Record {
			d, _ := firstDocument(recs)
			for _, r := range recs {
				if r.Chunk != nil && r.Chunk.DocumentID == secondID {
					r.Chunk.Source = d.Document.Source
				}
				if r.Document != nil && r.Document.Document.ID == secondID {
					r.Document.Document.Source = d.Document.Source
				}
			}
			return recs
		}), "chunk", "document_id", []string{"chunk 0 of document " + secondID}},
		{"chunk id ../../x", edit(func(_ *archive.Document, chunks []*archive.Chunk, recs []archive.Record) []archive.Record {
			chunks[0].ID = "../../x"
			return recs
		}), "chunk", "id", []string{"chunk 0 of document " + id, "../../x"}},
		{"chunk id of another chunk", edit(func(_ *archive.Document, chunks []*archive.Chunk, recs []archive.Record) []archive.Record {
			chunks[0].ID = ragd.ChunkID(id, hash, 1)
			return recs
		}), "chunk", "id", []string{"chunk 0 of document " + id}},
		{"null vector element", editPlain(t, data, `"vector":\[[-0-9.eE+]+`, `"vector":[null`), "chunk", "vector",
			[]string{"element 0 is null"}},
		{"negative page", edit(func(_ *archive.Document, chunks []*archive.Chunk, recs []archive.Record) []archive.Record {
			chunks[0].Page = -1
			return recs
		}), "chunk", "page", []string{"chunk 0 of document " + id}},
		{"negative word count", edit(func(d *archive.Document, _ []*archive.Chunk, recs []archive.Record) []archive.Record {
			for w := range d.Vocabulary.DF {
				d.Vocabulary.DF[w] = -1
				break
			}
			return recs
		}), "document", "vocabulary", []string{"document " + id}},
		{"image beyond an ingest's", edit(func(d *archive.Document, _ []*archive.Chunk, recs []archive.Record) []archive.Record {
			im := archive.ImageOf(ragd.Image{ID: ragd.ImageID(id, hash, document.MaxImages), DocumentID: id, ContentHash: hash,
				Source: d.Document.Source, Index: document.MaxImages, Caption: "fig", Vector: vector})
			i := slices.IndexFunc(recs, func(r archive.Record) bool { return r.Document != nil })
			return slices.Insert(recs, i, archive.Record{Type: archive.TypeImage, Image: im})
		}), "image", "image_index", []string{"image " + fmt.Sprint(document.MaxImages) + " of document"}},
		{"relative file path", source("file://docs/a.txt", ragd.SourceText), "document", "source", []string{"file://docs/a.txt"}},
		{"file path with ..", source("file:///srv/docs/../../etc/passwd.txt", ragd.SourceText), "document", "source", []string{"passwd"}},
		{"file of another type", source("file:///srv/docs/a.pdf", ragd.SourceText), "document", "source_type", []string{"pdf"}},
		{"ftp", source("ftp://example.com/a.txt", ragd.SourceText), "document", "source", []string{"ftp://example.com/a.txt"}},
		{"url not canonical", source("HTTPS://Example.com:443/a", ragd.SourceHTML), "document", "source", []string{"https://example.com/a"}},
		{"upload of another namespace", source("upload://other/a.txt", ragd.SourceText), "document", "source", []string{"upload://other/a.txt"}},
		{"upload with a path", source("upload://src/../a.txt", ragd.SourceText), "document", "source", []string{"upload://src/../a.txt"}},
		{"text not hashed", source("text://hello", ragd.SourceText), "document", "source", []string{"text://hello"}},
		{"git path with ..", source("git+https://example.com/r.git?ref=main#../a.md", ragd.SourceMarkdown), "document", "source", []string{"#../a.md"}},
		{"unknown source type", source("text://"+strings.Repeat("a", 32), "exe"), "chunk", "source_type", []string{"exe"}},
	})

	// Every kind of source ragd makes imports; an imported file:// source
	// is a label, wherever it points (the importing ragd reads no file of
	// an archived document; a sync reads only the files it walks, inside
	// its roots).
	for _, c := range []struct {
		source string
		typ    ragd.SourceType
	}{
		{"file:///etc/passwd.txt", ragd.SourceText}, {"upload://src/notes.md", ragd.SourceMarkdown},
		{"https://example.com/a?b=c", ragd.SourceHTML}, {"text://" + strings.Repeat("0", 32), ragd.SourceText},
		{"git+https://example.com/r.git?ref=main#docs/a.md", ragd.SourceMarkdown},
	} {
		if _, job := importKB(t, s, "src", source(c.source, c.typ)); job.Status != ragd.JobCompleted {
			t.Errorf("import of a document of source %s: %s %s", c.source, job.Status, job.Error)
		}
		if d := docByID(t, s, "src", ragd.DocumentID("src", c.source)); d.Source != c.source {
			t.Errorf("imported %s as %s", c.source, d.Source)
		}
	}
}
