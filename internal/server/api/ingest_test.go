package api_test

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"ragd"
	"ragd/internal/testkit/stack"
	"ragd/internal/testkit/testenv"
)

// A real directory of documents nobody here wrote goes in through the
// directory job and a known passage comes back out of search.
func TestIngestDirectoryThenSearchFindsKnownPassage(t *testing.T) {
	t.Parallel()
	root := goDocs(t)
	s := stack.Start(t, stack.Config(t, root), true)

	resp := s.Do(t, http.MethodPost, "/tools/rag_index_directory", map[string]any{"directory_path": filepath.Join(root, "godoc"), "kb_name": "godocs"})
	if resp.Status != http.StatusAccepted || str(resp.JSON, "status") != "queued" || str(resp.JSON, "job_id") == "" {
		t.Fatalf("rag_index_directory: %d %s", resp.Status, resp.Body)
	}
	job := s.WaitJob(t, str(resp.JSON, "job_id"), 2*time.Minute)
	if job.Status != ragd.JobCompleted || job.Type != "ingest:directory" {
		t.Fatalf("directory job: %+v", job)
	}
	if job.Progress != (ragd.Progress{Done: 4, Total: 4, Unit: "files"}) || len(job.Children) != 4 {
		t.Fatalf("directory progress %+v, %d children", job.Progress, len(job.Children))
	}
	var res ragd.DirectoryResult
	_ = json.Unmarshal(job.Result, &res)
	if res.FilesIndexed != 4 || res.FilesFailed != 0 || res.ChunksIndexed == 0 {
		t.Fatalf("directory result %+v", res)
	}
	for _, c := range job.Children {
		if c.Status != ragd.JobCompleted || c.Chunks == 0 {
			t.Errorf("child %+v", c)
		}
	}
	if job.CompletedAt == nil || job.CreatedAt.IsZero() {
		t.Errorf("timestamps: created %v completed %v", job.CreatedAt, job.CompletedAt)
	}

	// go_mem.html: "The happens before relation is defined as the transitive
	// closure of the union of the sequenced before and synchronized before relations."
	results := search(t, s, "happens before relation transitive closure sequenced synchronized", "godocs", 5)
	if !anyContains(results, "text", "transitive closure of the union of the sequenced before") {
		t.Fatalf("known passage of go_mem.html not in top 5: %v", results)
	}
	if !strings.HasSuffix(str(results[0], "source"), "go_mem.html") {
		t.Errorf("top result from %s, want go_mem.html", str(results[0], "source"))
	}
	// Another namespace sees none of it.
	if r := search(t, s, "happens before relation", "other", 5); len(r) != 0 {
		t.Fatalf("namespace leak: %v", r)
	}
}

// A search right after an ingest must find the new document: Weaviate's
// BlockMax-WAND inverted index misses objects still in its memtable, so
// ragd runs Weaviate with USE_INVERTED_SEARCHABLE=false.
func TestSearchRightAfterIngestFindsNewDocument(t *testing.T) {
	t.Parallel()
	s := stack.Start(t, stack.Config(t), true)
	for i, text := range []string{
		"Zorblax turbines convert tidal energy into electricity for the harbour.",
		"The quokka is a small marsupial found on Rottnest Island.",
		"Sourdough bread rises because of wild yeast and lactobacilli.",
	} {
		resp := s.Do(t, http.MethodPost, "/tools/rag_index", map[string]any{"text": text, "wait": true})
		if resp.Status != http.StatusOK || num(resp.JSON, "chunks_indexed") != 1 {
			t.Fatalf("index %d: %d %s", i, resp.Status, resp.Body)
		}
	}
	results := search(t, s, "zorblax turbines", "", 1)
	if len(results) != 1 || !strings.Contains(str(results[0], "text"), "Zorblax") {
		t.Fatalf("new document not found right after ingest: %v", results)
	}
	results = search(t, s, "quokka marsupial", "", 1)
	if len(results) != 1 || !strings.Contains(str(results[0], "text"), "quokka") {
		t.Fatalf("new document not found right after ingest: %v", results)
	}
}

// A job moves queued → completed with progress in chunks, and a waiting
// request gets the seed API's shape.
func TestJobStatesProgressAndWait(t *testing.T) {
	t.Parallel()
	root := goDocs(t)
	cfg := stack.Config(t, root)
	// First without a worker: the job stays queued.
	s := stack.Start(t, cfg, false)
	path := filepath.Join(root, "godoc", "go_mem.html")
	resp := s.Do(t, http.MethodPost, "/tools/rag_index", map[string]any{"file_path": path})
	if resp.Status != http.StatusAccepted || resp.JSON["dedup_hit"] != false || str(resp.JSON, "document_id") == "" {
		t.Fatalf("rag_index: %d %s", resp.Status, resp.Body)
	}
	id := str(resp.JSON, "job_id")
	job := decodeJob(t, s.Do(t, http.MethodGet, "/jobs/"+id, nil))
	if job.Status != ragd.JobQueued || job.Type != "ingest:document" || job.CompletedAt != nil || job.CreatedAt.IsZero() {
		t.Fatalf("queued job: %+v", job)
	}

	// A wait:true request with no worker answers 202 with the job once the wait limit passes.
	cfg.HTTP.WaitTimeout = 300 * time.Millisecond
	short := stack.Start(t, cfg, false)
	resp = short.Do(t, http.MethodPost, "/tools/rag_index", map[string]any{"text": "waiting for a worker that is not there", "wait": true})
	if resp.Status != http.StatusAccepted || str(resp.JSON, "status") != "queued" || str(resp.JSON, "job_id") == "" {
		t.Fatalf("wait timeout: %d %s", resp.Status, resp.Body)
	}

	// Now a worker on the same queue picks the jobs up.
	w := s.NewWorker()
	if err := w.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.Shutdown)
	job = s.WaitJob(t, id, time.Minute)
	var res ragd.DocumentResult
	_ = json.Unmarshal(job.Result, &res)
	if job.Status != ragd.JobCompleted || res.ChunksIndexed == 0 || job.CompletedAt == nil {
		t.Fatalf("completed job: %+v", job)
	}
	if job.Progress.Unit != "chunks" || job.Progress.Done != res.ChunksIndexed || job.Progress.Total != res.ChunksIndexed {
		t.Fatalf("progress %+v for %d chunks", job.Progress, res.ChunksIndexed)
	}
	if n := s.ChunkCount(t, "default", res.DocumentID); n != res.ChunksIndexed {
		t.Fatalf("%d chunks stored, job says %d", n, res.ChunksIndexed)
	}

	resp = s.Do(t, http.MethodPost, "/tools/rag_index", map[string]any{"file_path": filepath.Join(root, "godoc", "asm.html"), "wait": true})
	if resp.Status != http.StatusOK || str(resp.JSON, "status") != "success" || num(resp.JSON, "chunks_indexed") == 0 ||
		str(resp.JSON, "file_path") == "" || !strings.Contains(str(resp.JSON, "message"), "asm.html") {
		t.Fatalf("wait:true: %d %s", resp.Status, resp.Body)
	}
}

// Same namespace + same content is a dedup hit with no new job; force makes one.
func TestDedup(t *testing.T) {
	t.Parallel()
	root := goDocs(t)
	s := stack.Start(t, stack.Config(t, root), true)
	path := filepath.Join(root, "godoc", "godebug.md")

	first := s.Do(t, http.MethodPost, "/tools/rag_index", map[string]any{"file_path": path, "kb_name": "a", "wait": true})
	if first.Status != http.StatusOK || first.JSON["dedup_hit"] != false {
		t.Fatalf("first: %d %s", first.Status, first.Body)
	}
	again := s.Do(t, http.MethodPost, "/tools/rag_index", map[string]any{"file_path": path, "kb_name": "a"})
	if again.Status != http.StatusOK || again.JSON["dedup_hit"] != true || again.JSON["job_id"] != nil ||
		str(again.JSON, "document_id") != str(first.JSON, "document_id") {
		t.Fatalf("repeat: %d %s", again.Status, again.Body)
	}
	// The same bytes under another name in the same namespace are the same content.
	copyPath := filepath.Join(root, "copy", "godebug-copy.md")
	testenv.CopyFile(t, path, copyPath)
	dup := s.Do(t, http.MethodPost, "/tools/rag_index", map[string]any{"file_path": copyPath, "kb_name": "a"})
	if dup.JSON["dedup_hit"] != true || str(dup.JSON, "document_id") != str(first.JSON, "document_id") {
		t.Fatalf("copy: %d %s", dup.Status, dup.Body)
	}
	// Another namespace is not a duplicate.
	other := s.Do(t, http.MethodPost, "/tools/rag_index", map[string]any{"file_path": path, "kb_name": "b"})
	if other.Status != http.StatusAccepted || other.JSON["dedup_hit"] != false {
		t.Fatalf("other namespace: %d %s", other.Status, other.Body)
	}
	// force re-indexes: a new job, and still no duplicate chunks.
	forced := s.Do(t, http.MethodPost, "/tools/rag_index", map[string]any{"file_path": path, "kb_name": "a", "force": true, "wait": true})
	if forced.Status != http.StatusOK || str(forced.JSON, "job_id") == "" {
		t.Fatalf("force: %d %s", forced.Status, forced.Body)
	}
	if n := s.ChunkCount(t, "a", str(first.JSON, "document_id")); n != num(first.JSON, "chunks_indexed") {
		t.Fatalf("after force: %d chunks, want %d", n, num(first.JSON, "chunks_indexed"))
	}
	// Inline text dedups on normalized content.
	t1 := s.Do(t, http.MethodPost, "/tools/rag_index", map[string]any{"text": "Alpha  beta.\r\n\r\nGamma.", "wait": true})
	t2 := s.Do(t, http.MethodPost, "/tools/rag_index", map[string]any{"text": "Alpha  beta.\r\n\r\nGamma."})
	if t1.Status != http.StatusOK || t2.JSON["dedup_hit"] != true {
		t.Fatalf("text dedup: %s / %s", t1.Body, t2.Body)
	}
}

// A changed file re-ingested replaces its chunks: no stale chunk, no duplicate.
func TestReingestChangedFileLeavesNoStaleChunks(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	s := stack.Start(t, stack.Config(t, root), true)
	path := filepath.Join(root, "notes.md")
	var v1 strings.Builder
	v1.WriteString("# Release notes\n\n")
	for i := 0; i < 40; i++ {
		v1.WriteString("## Section " + string(rune('A'+i%26)) + "\n\nThe obsolete flamingo protocol handles batch number " + strings.Repeat("x", i%5) + " carefully.\n\n")
	}
	writeFile(t, path, v1.String())
	first := s.Do(t, http.MethodPost, "/tools/rag_index", map[string]any{"file_path": path, "wait": true})
	n1 := num(first.JSON, "chunks_indexed")
	if first.Status != http.StatusOK || n1 < 10 {
		t.Fatalf("v1: %d %s", first.Status, first.Body)
	}
	docID := str(first.JSON, "document_id")

	genBefore, err := s.Library.Versions.Generations.Get(t.Context(), "default")
	if err != nil || genBefore < 1 {
		t.Fatalf("cache generation after the first ingest: %d, %v", genBefore, err)
	}

	writeFile(t, path, "# Release notes\n\n## Only section\n\nThe pelican protocol replaced everything.\n")
	second := s.Do(t, http.MethodPost, "/tools/rag_index", map[string]any{"file_path": path, "wait": true})
	if second.Status != http.StatusOK || second.JSON["dedup_hit"] != false || num(second.JSON, "chunks_indexed") != 1 ||
		str(second.JSON, "document_id") != docID {
		t.Fatalf("v2: %d %s", second.Status, second.Body)
	}
	if n := s.ChunkCount(t, "default", docID); n != 1 {
		t.Fatalf("after re-ingest: %d chunks stored, want 1", n)
	}
	if r := search(t, s, "flamingo protocol", "", 20); anyContains(r, "text", "flamingo") {
		t.Fatalf("stale chunk of the old version is still found: %v", r)
	}
	if r := search(t, s, "pelican protocol", "", 5); !anyContains(r, "text", "pelican") {
		t.Fatalf("new version not found: %v", r)
	}
	if gen, _ := s.Library.Versions.Generations.Get(t.Context(), "default"); gen <= genBefore {
		t.Fatalf("cache generation %d after re-ingest, want it past %d", gen, genBefore)
	}
	if gen, _ := s.Library.Versions.Generations.Get(t.Context(), "other"); gen != 0 {
		t.Fatalf("another namespace's generation moved to %d", gen)
	}
	doc, err := s.Library.Registry.Get(t.Context(), "default", docID)
	if err != nil || doc.Chunks != 1 {
		t.Fatalf("registry: %+v, %v", doc, err)
	}
}

// A corrupt PDF fails its own job with a readable error; the other files of
// the directory are indexed.
func TestCorruptFileFailsAloneInDirectory(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	s := stack.Start(t, stack.Config(t, root), true)
	dir := filepath.Join(root, "mixed")
	testenv.CopyFile(t, testenv.ModuleFile(t, testenv.PDFModule, "testdata/story.docx"), filepath.Join(dir, "story.docx"))
	good, err := os.ReadFile(testenv.ModuleFile(t, testenv.PDFModule, "testdata/story_avepdf-com__pdf17_linarized_xref.pdf"))
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, "story.pdf"), string(good))
	writeFile(t, filepath.Join(dir, "broken.pdf"), string(good[:len(good)/3]))
	writeFile(t, filepath.Join(dir, "garbage.docx"), "PK\x03\x04 this is not a zip")
	writeFile(t, filepath.Join(dir, "notes.txt"), "Plain notes about the story.")
	writeFile(t, filepath.Join(dir, "ignored.exe"), "MZ")

	resp := s.Do(t, http.MethodPost, "/tools/rag_index_directory", map[string]any{"directory_path": dir, "wait": true})
	if resp.Status != http.StatusOK || num(resp.JSON, "files_total") != 5 || num(resp.JSON, "files_failed") != 2 {
		t.Fatalf("directory: %d %s", resp.Status, resp.Body)
	}
	job := decodeJob(t, s.Do(t, http.MethodGet, "/jobs/"+str(resp.JSON, "job_id"), nil))
	for _, c := range job.Children {
		base := filepath.Base(c.FilePath)
		switch base {
		case "broken.pdf", "garbage.docx":
			if c.Status != ragd.JobFailed || c.Error == "" || strings.Contains(c.Error, "skip retry") {
				t.Errorf("%s: %+v", base, c)
			}
			if base == "broken.pdf" && !strings.Contains(c.Error, "PDF") {
				t.Errorf("%s: error does not say what failed: %q", base, c.Error)
			}
		default:
			if c.Status != ragd.JobCompleted || c.Chunks == 0 {
				t.Errorf("%s: %+v", base, c)
			}
		}
	}
	// A waiting request for a corrupt file gets the readable error.
	bad := s.Do(t, http.MethodPost, "/tools/rag_index", map[string]any{"file_path": filepath.Join(dir, "broken.pdf"), "kb_name": "solo", "wait": true})
	if bad.Status != http.StatusUnprocessableEntity || !strings.Contains(str(bad.JSON, "detail"), "PDF") {
		t.Fatalf("wait on corrupt PDF: %d %s", bad.Status, bad.Body)
	}
}
