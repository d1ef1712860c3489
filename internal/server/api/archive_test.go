package api_test

import (
	"bytes"
	"cmp"
	"compress/gzip"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"ragd"
	"ragd/internal/catalog/archive"
	"ragd/internal/platform/config"
	"ragd/internal/testkit/stack"
)

// archiveStack is a whole ragd whose uploaded archives go to a directory
// of the test's own.
func archiveStack(t *testing.T, edit func(*config.Config), roots ...string) *stack.Stack {
	t.Helper()
	cfg := stack.Config(t, roots...)
	cfg.Data.Dir = t.TempDir()
	if edit != nil {
		edit(&cfg)
	}
	return stack.Start(t, cfg, true)
}

// doRaw is stack.Stack.DoRaw.
func doRaw(t *testing.T, s *stack.Stack, method, path, contentType, token string, body io.Reader) stack.Response {
	t.Helper()
	return s.DoRaw(t, method, path, contentType, token, body)
}

func exportKB(t *testing.T, s *stack.Stack, kb string) []byte {
	t.Helper()
	resp := doRaw(t, s, http.MethodGet, "/kb/"+kb+"/export", "", "", nil)
	if resp.Status != http.StatusOK || resp.Header.Get("Content-Type") != "application/gzip" ||
		!strings.Contains(resp.Header.Get("Content-Disposition"), kb+".ragd.jsonl.gz") {
		t.Fatalf("export %s: %d %v %.300s", kb, resp.Status, resp.Header, resp.Body)
	}
	return resp.Body
}

// importKB uploads an archive and waits for its job to end.
func importKB(t *testing.T, s *stack.Stack, kb string, data []byte) (library map[string]any, job ragd.Job) {
	t.Helper()
	resp := doRaw(t, s, http.MethodPost, "/kb/"+kb+"/import", "application/gzip", "", bytes.NewReader(data))
	if resp.Status != http.StatusAccepted || str(resp.JSON, "job_id") == "" || str(resp.JSON, "status") != "queued" {
		t.Fatalf("import into %s: %d %s", kb, resp.Status, resp.Body)
	}
	return resp.JSON, s.WaitJob(t, str(resp.JSON, "job_id"), 2*time.Minute)
}

// searchMode runs rag_search in one mode.
func searchMode(t *testing.T, s *stack.Stack, query, kb, mode string) []map[string]any {
	t.Helper()
	return searchBody(t, s, map[string]any{"query": query, "kb_name": kb, "mode": mode, "top_k": 10})
}

// documents lists every document of a namespace.
func documents(t *testing.T, s *stack.Stack, kb string) []ragd.Document {
	t.Helper()
	resp := s.Do(t, http.MethodGet, "/documents?limit=1000&kb_name="+kb, nil)
	var list struct{ Documents []ragd.Document }
	if resp.Status != http.StatusOK || json.Unmarshal(resp.Body, &list) != nil {
		t.Fatalf("documents of %s: %d %s", kb, resp.Status, resp.Body)
	}
	return list.Documents
}

var roundTripQueries = []string{
	"happens before relation between goroutines",
	"assembler pseudo registers FP SB",
	"GODEBUG setting compatibility",
	"channel send synchronization",
	"frame pointer and stack layout",
	"data race semantics",
	"installing the Go toolchain",
}

// Export, clear, import gives back the same namespace: the same documents
// and the same rag_search results (ids, texts, order, scores) in keyword
// and hybrid modes; imported under another name, the same results with
// the ids ragd derives in that namespace.
func TestExportClearImportRoundTrip(t *testing.T) {
	t.Parallel()
	root := goDocs(t)
	s := archiveStack(t, nil, root)
	dir := s.Do(t, http.MethodPost, "/tools/rag_index_directory", map[string]any{"directory_path": filepath.Join(root, "godoc"),
		"kb_name": "godocs", "tags": []string{"go"}, "wait": true})
	if dir.Status != http.StatusOK {
		t.Fatalf("index directory: %d %s", dir.Status, dir.Body)
	}
	indexText(t, s, "godocs", "A note about goroutines and memory: every channel send happens before the receive completes.", "note")
	before := searchAll(t, s, "godocs")
	docsBefore := documents(t, s, "godocs")
	chunks := s.ChunkCount(t, "godocs", "")
	if len(docsBefore) != 5 || chunks < 50 {
		t.Fatalf("indexed %d documents, %d chunks", len(docsBefore), chunks)
	}

	wordsBefore := s.Vocabulary(t, "godocs")
	data := exportKB(t, s, "godocs")
	h, tr := readArchive(t, data)
	// Each document carries its vocabulary, counted from its chunks
	// (Redis keeps none per document).
	for _, rec := range archiveRecords(t, data) {
		if d := rec.Document; d != nil && (d.Vocabulary == nil || d.Vocabulary.Chunks != d.Document.Chunks || len(d.Vocabulary.DF) == 0) {
			t.Errorf("document %s (%d chunks) exported with vocabulary %+v", d.Document.Source, d.Document.Chunks, d.Vocabulary)
		}
	}
	if h.KBName != "godocs" || h.Embedder.Name != s.Search.Embedder.Name() || h.Embedder.Dimension != 100 ||
		tr.Documents != 5 || tr.Chunks != chunks || len(tr.Skipped) != 0 {
		t.Fatalf("archive header %+v, trailer %+v (%d chunks stored)", h, tr, chunks)
	}

	if r := s.Do(t, http.MethodDelete, "/tools/rag_clear?kb_name=godocs", nil); r.Status != http.StatusOK {
		t.Fatalf("clear: %d %s", r.Status, r.Body)
	}
	if n := len(documents(t, s, "godocs")); n != 0 || len(searchMode(t, s, roundTripQueries[0], "godocs", "keyword")) != 0 {
		t.Fatalf("after clear: %d documents, or results left", n)
	}

	answer, job := importKB(t, s, "godocs", data)
	if num(answer, "documents") != 5 || num(answer, "chunks") != chunks || str(answer, "from_kb_name") != "godocs" {
		t.Fatalf("import answer %v", answer)
	}
	var res struct {
		DocumentsImported int `json:"documents_imported"`
		ChunksImported    int `json:"chunks_imported"`
	}
	if job.Status != ragd.JobCompleted || json.Unmarshal(job.Result, &res) != nil || res.DocumentsImported != 5 || res.ChunksImported != chunks {
		t.Fatalf("import job: %s %s %s", job.Status, job.Error, job.Result)
	}
	if got := documents(t, s, "godocs"); !sameDocuments(got, docsBefore) {
		t.Fatalf("documents after import:\n%+v\nbefore:\n%+v", got, docsBefore)
	}
	compareSearches(t, before, searchAll(t, s, "godocs"), nil)
	if got := s.Vocabulary(t, "godocs"); !maps.Equal(got, wordsBefore) {
		t.Errorf("vocabulary after the import: %d words, %d before", len(got), len(wordsBefore))
	}
	if entries, _ := os.ReadDir(filepath.Join(s.Config.Data.Dir, "imports")); len(entries) != 0 {
		t.Errorf("imported archive left in %s: %v", s.Config.Data.Dir, entries)
	}

	// Another namespace: ids are those ragd derives there from the source.
	if _, job := importKB(t, s, "godocs-copy", data); job.Status != ragd.JobCompleted {
		t.Fatalf("import under another name: %s %s", job.Status, job.Error)
	}
	compareSearches(t, before, searchAll(t, s, "godocs-copy"), func(r map[string]any) {
		if want := ragd.DocumentID("godocs-copy", str(r, "source")); str(r, "document_id") != want || str(r, "kb_name") != "godocs-copy" {
			t.Errorf("copy's result %v: want document_id %s", r, want)
		}
	})
	// Re-indexing a source of the copy finds the imported document unchanged.
	again := s.Do(t, http.MethodPost, "/tools/rag_index", map[string]any{"file_path": filepath.Join(root, "godoc", "godebug.md"), "kb_name": "godocs-copy"})
	if again.Status != http.StatusOK || again.JSON["dedup_hit"] != true {
		t.Fatalf("re-index in the copy: %d %s", again.Status, again.Body)
	}
}

// searchAll runs every round-trip query in keyword and hybrid modes.
func searchAll(t *testing.T, s *stack.Stack, kb string) map[string][]map[string]any {
	t.Helper()
	out := map[string][]map[string]any{}
	for _, q := range roundTripQueries {
		for _, mode := range []string{"keyword", "hybrid"} {
			r := searchMode(t, s, q, kb, mode)
			if len(r) == 0 {
				t.Fatalf("%s %q found nothing in %s", mode, q, kb)
			}
			out[mode+" "+q] = r
		}
	}
	return out
}

// compareSearches checks got gives the same results as want, in order,
// with the same scores (up to float noise); ids and namespaces are
// compared when same is nil, else handed to it.
func compareSearches(t *testing.T, want, got map[string][]map[string]any, same func(map[string]any)) {
	t.Helper()
	for key, w := range want {
		g := got[key]
		// Hits of equal score may come back in any order (Weaviate breaks
		// ties by its internal ids, which an import renumbers), and which of
		// the hits tied at the last place make the cut is just as free.
		w, g = byScoreThenText(w), byScoreThenText(g)
		if len(g) != len(w) {
			t.Errorf("%s: %d results, want %d", key, len(g), len(w))
			continue
		}
		for i := range w {
			ws, gs := w[i]["score"].(float64), g[i]["score"].(float64)
			scoreDiffers := math.Abs(ws-gs) > 1e-5*math.Max(1, math.Abs(ws))
			if !scoreDiffers && len(w) > 0 && math.Abs(ws-w[len(w)-1]["score"].(float64)) <= 1e-5*math.Max(1, math.Abs(ws)) {
				continue // tied with the last place: only the score is fixed
			}
			if str(g[i], "text") != str(w[i], "text") || str(g[i], "source") != str(w[i], "source") || scoreDiffers {
				t.Errorf("%s #%d: %.60q %v, want %.60q %v", key, i, str(g[i], "text"), gs, str(w[i], "text"), ws)
				continue
			}
			if same != nil {
				same(g[i])
			} else if str(g[i], "id") != str(w[i], "id") || str(g[i], "document_id") != str(w[i], "document_id") {
				t.Errorf("%s #%d: id %s of %s, want %s of %s", key, i, str(g[i], "id"), str(g[i], "document_id"), str(w[i], "id"), str(w[i], "document_id"))
			}
		}
	}
}

// byScoreThenText is results ordered by score, ties by text and source.
func byScoreThenText(rs []map[string]any) []map[string]any {
	out := slices.Clone(rs)
	slices.SortStableFunc(out, func(a, b map[string]any) int {
		as, bs := a["score"].(float64), b["score"].(float64)
		if math.Abs(as-bs) > 1e-5*math.Max(1, math.Abs(as)) {
			return cmp.Compare(bs, as)
		}
		return cmp.Or(strings.Compare(str(a, "text"), str(b, "text")), strings.Compare(str(a, "source"), str(b, "source")))
	})
	return out
}

func sameDocuments(a, b []ragd.Document) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		x, y := a[i], b[i]
		if x.ID != y.ID || x.ContentHash != y.ContentHash || x.RawHash != y.RawHash || x.Source != y.Source || x.Title != y.Title ||
			x.Chunks != y.Chunks || strings.Join(x.Tags, ",") != strings.Join(y.Tags, ",") ||
			!x.CreatedAt.Equal(y.CreatedAt) || !x.UpdatedAt.Equal(y.UpdatedAt) {
			return false
		}
	}
	return true
}

// archiveRecords reads an archive's records.
func archiveRecords(t *testing.T, data []byte) []archive.Record {
	t.Helper()
	r, err := archive.NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	var out []archive.Record
	for {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, rec)
	}
}

// readArchive reads an archive's header and trailer.
func readArchive(t *testing.T, data []byte) (archive.Header, archive.Trailer) {
	t.Helper()
	r, err := archive.NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := r.Next(); errors.Is(err, io.EOF) {
			return r.Header(), r.Trailer()
		} else if err != nil {
			t.Fatal(err)
		}
	}
}

// Importing into a namespace that has documents replaces those of the
// same id by the archive's version (their newer chunks go) and keeps the
// others.
func TestImportIntoNamespaceWithDocuments(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	a := writeFile(t, filepath.Join(root, "a.md"), "# Kestrels\n\nThe kestrel hovers over meadows hunting voles.\n")
	b := writeFile(t, filepath.Join(root, "b.md"), "# Herons\n\nThe grey heron waits motionless at the water's edge.\n")
	s := archiveStack(t, nil, root)
	idA := indexFile(t, s, "birds", a)
	idB := indexFile(t, s, "birds", b)
	data := exportKB(t, s, "birds")
	v1 := docByID(t, s, "birds", idA)

	writeFile(t, a, "# Kestrels\n\nThe kestrel nests on cliffs and in old crow nests in spring.\n")
	if idA2 := indexFile(t, s, "birds", a); idA2 != idA {
		t.Fatalf("new version of a is another document: %s vs %s", idA2, idA)
	}
	c := writeFile(t, filepath.Join(root, "c.md"), "# Swifts\n\nSwifts sleep on the wing and rarely land.\n")
	idC := indexFile(t, s, "birds", c)

	_, job := importKB(t, s, "birds", data)
	var res struct {
		Imported int `json:"documents_imported"`
		Replaced int `json:"documents_replaced"`
	}
	if job.Status != ragd.JobCompleted || json.Unmarshal(job.Result, &res) != nil || res.Imported != 2 || res.Replaced != 1 {
		t.Fatalf("import: %s %s %s", job.Status, job.Error, job.Result)
	}
	if got := docByID(t, s, "birds", idA); got.ContentHash != v1.ContentHash {
		t.Fatalf("a after import is version %s, want the archive's %s", got.ContentHash, v1.ContentHash)
	}
	if n := s.ChunkCount(t, "birds", idA); n != v1.Chunks {
		t.Fatalf("a has %d chunks stored, want its archived version's %d (the newer version's deleted)", n, v1.Chunks)
	}
	if r := searchMode(t, s, "kestrel nests cliffs crow", "birds", "keyword"); anyContains(r, "text", "cliffs") {
		t.Fatalf("the replaced version is still found: %v", r)
	}
	if r := searchMode(t, s, "kestrel hovers meadows voles", "birds", "keyword"); !anyContains(r, "text", "voles") {
		t.Fatalf("the archive's version is not found: %v", r)
	}
	for _, id := range []string{idB, idC} {
		docByID(t, s, "birds", id)
	}
	if r := searchMode(t, s, "swifts sleep on the wing", "birds", "keyword"); !anyContains(r, "text", "Swifts") {
		t.Fatalf("a document the archive does not hold was lost: %v", r)
	}
}

func indexFile(t *testing.T, s *stack.Stack, kb, path string) string {
	t.Helper()
	resp := s.Do(t, http.MethodPost, "/tools/rag_index", map[string]any{"file_path": path, "kb_name": kb, "wait": true})
	if resp.Status != http.StatusOK || str(resp.JSON, "document_id") == "" {
		t.Fatalf("index %s: %d %s", path, resp.Status, resp.Body)
	}
	return str(resp.JSON, "document_id")
}

func docByID(t *testing.T, s *stack.Stack, kb, id string) ragd.Document {
	t.Helper()
	resp := s.Do(t, http.MethodGet, "/documents/"+id+"?kb_name="+kb, nil)
	var d ragd.Document
	if resp.Status != http.StatusOK || json.Unmarshal(resp.Body, &d) != nil {
		t.Fatalf("document %s: %d %s", id, resp.Status, resp.Body)
	}
	return d
}

// Archives that cannot be loaded are refused at upload with a 422 saying
// why, and nothing is queued, stored or written.
func TestImportRefusesBadArchives(t *testing.T) {
	t.Parallel()
	s := archiveStack(t, func(c *config.Config) { c.Import.MaxBytes = 200_000 })
	indexText(t, s, "src", "Lighthouses guide ships past dangerous rocks at night.")
	indexText(t, s, "src", "Tides rise and fall twice a day, pulled by the moon.")
	data := exportKB(t, s, "src")

	var other bytes.Buffer
	w, _ := archive.NewWriter(&other, archive.Header{KBName: "src", Embedder: archive.Embedder{Name: "openai:text-embedding-3-small", Dimension: 1536}})
	_ = w.Close()
	cases := []struct {
		name        string
		contentType string
		body        []byte
		status      int
		want        []string
	}{
		{"other embedder", "application/gzip", other.Bytes(), 422,
			[]string{"openai:text-embedding-3-small (dimension 1536)", s.Search.Embedder.Name() + " (dimension 100)"}},
		{"truncated", "application/gzip", data[:len(data)/2], 422, []string{"archive is truncated"}},
		{"without trailer", "application/octet-stream", withoutTrailer(t, data), 422, []string{"archive is truncated", "without its trailer"}},
		{"not an archive", "application/gzip", []byte("just some text"), 422, []string{"not a gzip stream"}},
		{"empty", "application/gzip", nil, 422, []string{"archive is truncated"}},
		{"json", "application/json", data, 415, []string{"application/gzip"}},
		{"too large", "application/gzip", bytes.Repeat(data, 200_000/len(data)+1), 413, []string{"import.max_bytes (200000 bytes)"}},
	}
	for _, c := range cases {
		resp := doRaw(t, s, http.MethodPost, "/kb/dst/import", c.contentType, "", bytes.NewReader(c.body))
		if resp.Status != c.status {
			t.Errorf("%s: %d %s, want %d", c.name, resp.Status, resp.Body, c.status)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(string(resp.Body), w) {
				t.Errorf("%s: %s lacks %q", c.name, resp.Body, w)
			}
		}
	}
	// A body of undeclared length over the limit is cut off while read.
	resp := doRaw(t, s, http.MethodPost, "/kb/dst/import", "application/gzip", "", io.MultiReader(bytes.NewReader(bigArchive(t, s, 300_000))))
	if resp.Status != http.StatusRequestEntityTooLarge {
		t.Errorf("chunked body over the limit: %d %s", resp.Status, resp.Body)
	}
	if r := doRaw(t, s, http.MethodPost, "/kb/Bad!/import", "application/gzip", "", bytes.NewReader(data)); r.Status != 422 {
		t.Errorf("bad kb_name: %d %s", r.Status, r.Body)
	}
	if n := len(documents(t, s, "dst")); n != 0 || s.ChunkCount(t, "dst", "") != 0 {
		t.Fatalf("refused imports left %d documents, %d chunks", n, s.ChunkCount(t, "dst", ""))
	}
	if entries, _ := os.ReadDir(filepath.Join(s.Config.Data.Dir, "imports")); len(entries) != 0 {
		t.Fatalf("refused archives left on disk: %v", entries)
	}
}

// bigArchive is an archive of this server's embedder whose one chunk is
// an incompressible text of about n bytes.
func bigArchive(t *testing.T, s *stack.Stack, n int) []byte {
	t.Helper()
	noise := make([]byte, n)
	_, _ = rand.Read(noise)
	var buf bytes.Buffer
	w, _ := archive.NewWriter(&buf, archive.Header{KBName: "src", Embedder: archive.Embedder{Name: s.Search.Embedder.Name(), Dimension: 100}})
	if err := w.Chunk(archive.ChunkOf(ragd.Chunk{ID: ragd.ChunkID("d", "h", 0), DocumentID: "d", ContentHash: "h", Source: "text://d",
		Text: base64.StdEncoding.EncodeToString(noise), Vector: make([]float32, 100)})); err != nil {
		t.Fatal(err)
	}
	_ = w.Close()
	return buf.Bytes()
}

// withoutTrailer is the archive's records without its trailer, in a
// well-formed gzip stream.
func withoutTrailer(t *testing.T, data []byte) []byte {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	plain, _ := io.ReadAll(zr)
	lines := bytes.SplitAfter(plain, []byte("\n"))
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	_, _ = zw.Write(bytes.Join(lines[:len(lines)-2], nil))
	_ = zw.Close()
	return buf.Bytes()
}

// An import that fails once chunks are written leaves no partial
// document: every document it made current is whole, and nothing of the
// others stays. Here the store holds one chunk more of every archived
// document of more than one chunk, of the archive's version, as another
// job writing the same documents meanwhile would leave it: the import
// finds the count wrong when it checks before making such a document
// current, and fails. (An archive whose own records are at fault is
// refused at upload: TestImportChecksRecords.)
func TestFailedImportLeavesNoPartialDocument(t *testing.T) {
	t.Parallel()
	root := goDocs(t)
	s := archiveStack(t, func(c *config.Config) { c.Worker.MaxRetries = 0; c.Weaviate.BatchSize = 10 }, root)
	if r := s.Do(t, http.MethodPost, "/tools/rag_index_directory", map[string]any{"directory_path": filepath.Join(root, "godoc"),
		"kb_name": "src", "wait": true}); r.Status != http.StatusOK {
		t.Fatalf("index: %d %s", r.Status, r.Body)
	}
	data := exportKB(t, s, "src")
	// Into the namespace exported (emptied), so the archive's ids are kept.
	if r := s.Do(t, http.MethodDelete, "/tools/rag_clear?kb_name=src", nil); r.Status != http.StatusOK {
		t.Fatalf("clear: %d %s", r.Status, r.Body)
	}
	broken := map[string]bool{}
	var extra []ragd.Chunk
	editArchive(t, data, func(_ *archive.Header, recs []archive.Record) []archive.Record {
		vector := recs[0].Chunk.Vector
		for _, r := range recs {
			if d := r.Document; d != nil && d.Document.Chunks > 1 {
				doc := d.Document
				broken[doc.ID] = true
				extra = append(extra, ragd.Chunk{ID: ragd.ChunkID(doc.ID, doc.ContentHash, doc.Chunks), DocumentID: doc.ID, Namespace: "src",
					Source: doc.Source, SourceType: doc.SourceType, ContentHash: doc.ContentHash, Index: doc.Chunks,
					Text: "written by another job", Vector: vector})
			}
		}
		return recs
	})
	if len(broken) < 3 {
		t.Fatalf("only %d documents of more than one chunk", len(broken))
	}
	if err := s.Chunks.Upsert(context.Background(), "src", extra); err != nil {
		t.Fatal(err)
	}
	_, job := importKB(t, s, "src", data)
	if job.Status != ragd.JobFailed || !strings.Contains(job.Error, "another job wrote or deleted it during the import") {
		t.Fatalf("import into a store holding chunks another job wrote: %s %q", job.Status, job.Error)
	}
	listed := 0
	for _, d := range documents(t, s, "src") {
		if broken[d.ID] {
			t.Errorf("document %s is current with a chunk too many", d.Source)
		}
		if n := s.ChunkCount(t, "src", d.ID); n != d.Chunks {
			t.Errorf("document %s is current with %d of its %d chunks", d.Source, n, d.Chunks)
		}
		listed += d.Chunks
	}
	if n := s.ChunkCount(t, "src", ""); n != listed {
		t.Fatalf("a failed import left %d chunks, its current documents have %d", n, listed)
	}
}

// A key limited to namespaces can export and import only those; an unknown
// namespace has nothing to export.
func TestArchiveAccess(t *testing.T) {
	t.Parallel()
	cfg := stack.Config(t)
	cfg.Data.Dir = t.TempDir()
	cfg.Auth.Mode = "static-token"
	cfg.Auth.Keys = []config.AuthKey{{Name: "admin", Token: "tok-admin-0123456789", Groups: []string{"*"}},
		{Name: "finance", Token: "tok-finance-0123456789", Namespaces: []string{"finance"}},
		{Name: "finance-ops", Token: "tok-finops-0123456789", Namespaces: []string{"finance"}, Groups: []string{"*"}}}
	s := stack.Start(t, cfg, true)
	const admin, finance = "tok-admin-0123456789", "tok-finance-0123456789"
	idx := doRaw(t, s, http.MethodPost, "/tools/rag_index", "application/json", admin,
		strings.NewReader(`{"text":"Salaries are reviewed every April.","kb_name":"hr","wait":true}`))
	if idx.Status != http.StatusOK {
		t.Fatalf("index: %d %s", idx.Status, idx.Body)
	}
	exp := doRaw(t, s, http.MethodGet, "/kb/hr/export", "", finance, nil)
	if exp.Status != http.StatusForbidden || !strings.Contains(str(exp.JSON, "detail"), `may not access namespace "hr"`) {
		t.Fatalf("finance key exporting hr: %d %s", exp.Status, exp.Body)
	}
	data := doRaw(t, s, http.MethodGet, "/kb/hr/export", "", admin, nil)
	if data.Status != http.StatusOK {
		t.Fatalf("admin export: %d %.200s", data.Status, data.Body)
	}
	if r := doRaw(t, s, http.MethodPost, "/kb/hr/import", "application/gzip", finance, bytes.NewReader(data.Body)); r.Status != http.StatusForbidden {
		t.Fatalf("finance key importing into hr: %d %s", r.Status, r.Body)
	}
	// Import is an operator's: a key that does not see every document
	// could write over documents hidden from it.
	if r := doRaw(t, s, http.MethodPost, "/kb/finance/import", "application/gzip", finance, bytes.NewReader(data.Body)); r.Status != http.StatusForbidden ||
		!strings.Contains(str(r.JSON, "detail"), "needs an operator") {
		t.Fatalf("finance key (no groups) importing into finance: %d %s", r.Status, r.Body)
	}
	if r := doRaw(t, s, http.MethodPost, "/kb/finance/import", "application/gzip", "tok-finops-0123456789", bytes.NewReader(data.Body)); r.Status != http.StatusAccepted {
		t.Fatalf("finance operator key importing into finance: %d %s", r.Status, r.Body)
	}
	if r := doRaw(t, s, http.MethodGet, "/kb/hr/export", "", "", nil); r.Status != http.StatusUnauthorized {
		t.Fatalf("export without a key: %d", r.Status)
	}
	r := doRaw(t, s, http.MethodGet, "/kb/nobody/export", "", admin, nil)
	if r.Status != http.StatusNotFound || !strings.Contains(str(r.JSON, "detail"), "namespace nobody holds no documents") {
		t.Fatalf("unknown namespace: %d %s", r.Status, r.Body)
	}
	if r := doRaw(t, s, http.MethodGet, "/kb/Bad!/export", "", admin, nil); r.Status != 422 {
		t.Fatalf("bad kb_name: %d %s", r.Status, r.Body)
	}
}

// The export is written from the store while it is read: a document the
// registry holds but whose chunks are gone (written meanwhile) is left
// out and named in the trailer, never exported without its chunks.
func TestExportLeavesOutChangedDocuments(t *testing.T) {
	t.Parallel()
	s := archiveStack(t, nil)
	keep := indexText(t, s, "ns", "Glaciers carve valleys over thousands of years.")
	gone := indexText(t, s, "ns", "Volcanoes erupt when magma pressure builds up.")
	if _, err := s.Chunks.DeleteDocument(context.Background(), "ns", gone); err != nil {
		t.Fatal(err)
	}
	_, tr := readArchive(t, exportKB(t, s, "ns"))
	if tr.Documents != 1 || tr.Chunks != 1 || fmt.Sprint(tr.Skipped) != fmt.Sprint([]string{gone}) {
		t.Fatalf("trailer %+v; want %s exported and %s left out", tr, keep, gone)
	}
}
