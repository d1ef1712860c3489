package api_test

import (
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"ragd"
	"ragd/internal/testkit/stack"
	"ragd/internal/testkit/testenv"
)

var scanLines = []string{
	"The quarterly invoice from Zephyr Logistics",
	"lists forty crates of porcelain shipped to",
	"Rotterdam in November.",
}

// A scanned PDF (an image of text, no text layer) is read by OCR in the
// worker and found by its words; its chunks say page 1 and ocr, and the
// job's result counts the page. A typed document's results carry no ocr.
func TestScannedPDFIsFoundByItsWords(t *testing.T) {
	testenv.RequireOCR(t)
	t.Parallel()
	root := t.TempDir()
	s := stack.Start(t, stack.Config(t, root), true)
	path := writeFile(t, filepath.Join(root, "scan.pdf"), string(testenv.ScannedPDF(t, testenv.ScanPage{Lines: scanLines})))
	resp := s.Do(t, http.MethodPost, "/tools/rag_index", map[string]any{"file_path": path, "wait": true})
	if resp.Status != http.StatusOK || num(resp.JSON, "chunks_indexed") == 0 {
		t.Fatalf("rag_index: %d %s", resp.Status, resp.Body)
	}
	job := decodeJob(t, s.Do(t, http.MethodGet, "/jobs/"+str(resp.JSON, "job_id"), nil))
	var res ragd.DocumentResult
	if err := json.Unmarshal(job.Result, &res); err != nil || res.PagesOCR != 1 {
		t.Fatalf("job result %s: want pages_ocr 1 (%v)", job.Result, err)
	}
	typed := s.Do(t, http.MethodPost, "/tools/rag_index", map[string]any{"text": "A typed note about porcelain from Delft.", "wait": true})
	if typed.Status != http.StatusOK {
		t.Fatalf("typed note: %d %s", typed.Status, typed.Body)
	}

	results := search(t, s, "Zephyr Logistics porcelain Rotterdam", "", 5)
	if len(results) == 0 || !strings.HasSuffix(str(results[0], "source"), "scan.pdf") {
		t.Fatalf("the scan is not the first result: %v", results)
	}
	top := results[0]
	if num(top, "page") != 1 || top["ocr"] != true || !strings.Contains(str(top, "text"), "Zephyr") {
		t.Errorf("scan's chunk: %v, want page 1, ocr true and its words", top)
	}
	for _, r := range results[1:] {
		if _, has := r["ocr"]; has && !strings.HasSuffix(str(r, "source"), "scan.pdf") {
			t.Errorf("a typed document's result says ocr: %v", r)
		}
	}
}

// While OCR reads a scanned PDF the job's progress counts pages: a
// tesseract that waits for the test's go-ahead before each page holds the
// job at 0 of 2, then 1 of 2 pages; after the pages the job counts chunks.
func TestOCRProgressCountsPages(t *testing.T) {
	testenv.RequireOCR(t)
	real, err := exec.LookPath("tesseract")
	if err != nil {
		t.Fatal(err)
	}
	bin := t.TempDir()
	gate := filepath.Join(bin, "go-ahead")
	// (the worker's start-up check, --list-langs, passes at once)
	script := "#!/bin/sh\n[ \"$1\" = --list-langs ] || while ! rm " + gate + " 2>/dev/null; do sleep 0.05; done\nexec " + real + " \"$@\"\n"
	if err := os.WriteFile(filepath.Join(bin, "tesseract"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))

	root := t.TempDir()
	s := stack.Start(t, stack.Config(t, root), true)
	path := writeFile(t, filepath.Join(root, "two.pdf"), string(testenv.ScannedPDF(t,
		testenv.ScanPage{Lines: scanLines}, testenv.ScanPage{Lines: []string{"Minutes of the harbour board meeting."}})))
	resp := s.Do(t, http.MethodPost, "/tools/rag_index", map[string]any{"file_path": path})
	if resp.Status != http.StatusAccepted {
		t.Fatalf("rag_index: %d %s", resp.Status, resp.Body)
	}
	id := str(resp.JSON, "job_id")
	for done := 0; done < 2; done++ {
		want := ragd.Progress{Done: done, Total: 2, Unit: "pages"}
		waitProgress(t, s, id, want)
		if err := os.WriteFile(gate, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	job := s.WaitJob(t, id, time.Minute)
	var res ragd.DocumentResult
	_ = json.Unmarshal(job.Result, &res)
	if job.Status != ragd.JobCompleted || res.PagesOCR != 2 || job.Progress.Unit != "chunks" || job.Progress.Done != res.ChunksIndexed {
		t.Fatalf("finished job: %+v, result %s", job, job.Result)
	}
	// (one chunk holds both short pages; its page is its first one's)
	if results := search(t, s, "harbour board minutes", "", 3); len(results) == 0 || !strings.Contains(str(results[0], "text"), "harbour") || results[0]["ocr"] != true {
		t.Fatalf("page 2's words: %v", results)
	}
}

// waitProgress polls the job until its progress is want; the job cannot
// pass it before the test lets the next page through.
func waitProgress(t *testing.T, s *stack.Stack, id string, want ragd.Progress) {
	t.Helper()
	var job ragd.Job
	for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		job = decodeJob(t, s.Do(t, http.MethodGet, "/jobs/"+id, nil))
		if job.Progress == want {
			return
		}
		if job.Status.Terminal() {
			break
		}
	}
	t.Fatalf("job never showed progress %+v: %+v", want, job)
}

// With ingest.ocr off, a scanned PDF fails its job with today's error.
func TestScannedPDFWithOCROffFailsAsBefore(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	cfg := stack.Config(t, root)
	cfg.Ingest.OCR = "off"
	s := stack.Start(t, cfg, true)
	path := writeFile(t, filepath.Join(root, "scan.pdf"), string(testenv.ScannedPDF(t, testenv.ScanPage{Lines: scanLines})))
	resp := s.Do(t, http.MethodPost, "/tools/rag_index", map[string]any{"file_path": path})
	if resp.Status != http.StatusAccepted {
		t.Fatalf("rag_index: %d %s", resp.Status, resp.Body)
	}
	job := s.WaitJob(t, str(resp.JSON, "job_id"), time.Minute)
	if job.Status != ragd.JobFailed || !strings.Contains(job.Error, "no extractable text (a scanned PDF needs OCR first; ingest.ocr is off)") {
		t.Fatalf("job: %+v", job)
	}
	if results := search(t, s, "Zephyr Logistics", "", 3); len(results) != 0 {
		t.Fatalf("an unread scan is found: %v", results)
	}
}
