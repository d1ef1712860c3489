package pdftext

import (
	"context"
	"errors"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"ragd/internal/ingest/document"
	"ragd/internal/testkit/testenv"
)

var invoiceLines = []string{
	"The quarterly invoice from Zephyr Logistics",
	"lists forty crates of porcelain shipped to",
	"Rotterdam in November.",
}

var minutesLines = []string{
	"Minutes of the harbour board meeting:",
	"the committee approved a new lighthouse.",
}

// A PDF mixing a typed page with two scanned ones: the scanned pages are
// read by OCR, their blocks carry their page and the OCR mark, the typed
// page keeps its text layer, and progress counts the scanned pages.
func TestScannedPagesAreReadByOCR(t *testing.T) {
	testenv.RequireOCR(t)
	data := testenv.ScannedPDF(t, testenv.ScanPage{Text: "Preface typed with a text layer"},
		testenv.ScanPage{Lines: invoiceLines}, testenv.ScanPage{Lines: minutesLines})
	var progress [][2]int
	p := Parser{Progress: func(done, total int) { progress = append(progress, [2]int{done, total}) }}
	l, err := p.Parse(context.Background(), data, "scan.pdf")
	if err != nil {
		t.Fatal(err)
	}
	if l.OCRPages != 2 {
		t.Errorf("OCRPages = %d, want 2", l.OCRPages)
	}
	if want := [][2]int{{0, 2}, {1, 2}, {2, 2}}; !equalPairs(progress, want) {
		t.Errorf("progress %v, want %v", progress, want)
	}
	pageText := map[int]string{}
	for _, b := range l.Blocks {
		if b.OCR != (b.Page > 1) {
			t.Errorf("block on page %d has OCR %v: %q", b.Page, b.OCR, b.Text)
		}
		pageText[b.Page] += b.Text + " "
	}
	for page, words := range map[int][]string{
		1: {"Preface", "typed"},
		2: {"quarterly", "invoice", "Zephyr", "Logistics", "porcelain", "Rotterdam"},
		3: {"harbour", "committee", "lighthouse"},
	} {
		for _, w := range words {
			if !strings.Contains(pageText[page], w) {
				t.Errorf("page %d lacks %q: %q", page, w, pageText[page])
			}
		}
	}
}

// With ingest.ocr off a scanned PDF fails as it always did, saying why.
func TestScannedPDFWithOCROffFails(t *testing.T) {
	data := testenv.ScannedPDF(t, testenv.ScanPage{Lines: invoiceLines})
	_, err := Parser{OCR: OCR{Off: true}}.Parse(context.Background(), data, "scan.pdf")
	var pe *document.ParseError
	if !errors.As(err, &pe) || !strings.Contains(err.Error(), "no extractable text (a scanned PDF needs OCR first; ingest.ocr is off)") {
		t.Fatalf("want today's no-text error saying ingest.ocr is off, got %v", err)
	}
}

// Without tesseract on PATH a scanned PDF fails with today's error and
// what to install; a typed page of a mixed PDF is still read.
func TestScannedPDFWithoutTesseractSaysWhatToInstall(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	data := testenv.ScannedPDF(t, testenv.ScanPage{Lines: invoiceLines})
	_, err := parse(data, "scan.pdf")
	var pe *document.ParseError
	if !errors.As(err, &pe) || !strings.Contains(err.Error(), "no extractable text (a scanned PDF needs OCR first: install Debian's tesseract-ocr") ||
		!strings.Contains(err.Error(), "poppler-utils") {
		t.Fatalf("want the no-text error naming the packages, got %v", err)
	}
	mixed := testenv.ScannedPDF(t, testenv.ScanPage{Text: "Preface typed with a text layer"}, testenv.ScanPage{Lines: invoiceLines})
	l, err := parse(mixed, "mixed.pdf")
	if err != nil || l.OCRPages != 0 || !strings.Contains(l.NormalizedText(), "Preface typed") {
		t.Fatalf("mixed PDF without OCR: %v, %+v", err, l)
	}
	if err := CheckOCR(context.Background(), OCR{}); err == nil || !strings.Contains(err.Error(), "tesseract-ocr") {
		t.Errorf("CheckOCR without tesseract: %v", err)
	}
	if err := CheckOCR(context.Background(), OCR{Off: true}); err != nil {
		t.Errorf("CheckOCR with OCR off: %v", err)
	}
}

// Languages tesseract has no data for fail the document with what to
// install; with one of them installed tesseract reads with that one.
// CheckOCR, which the worker logs at start, names each missing package.
func TestMissingOCRLanguageIsNamed(t *testing.T) {
	testenv.RequireOCR(t)
	data := testenv.ScannedPDF(t, testenv.ScanPage{Lines: invoiceLines})
	_, err := Parser{OCR: OCR{Languages: "zzz"}}.Parse(context.Background(), data, "scan.pdf")
	if err == nil || !strings.Contains(err.Error(), `tesseract lacks ingest.ocr_languages "zzz"`) || !strings.Contains(err.Error(), "OCR of page 1") {
		t.Fatalf("want an error naming the languages, got %v", err)
	}
	l, err := Parser{OCR: OCR{Languages: "eng+zzz"}}.Parse(context.Background(), data, "scan.pdf")
	if err != nil || !strings.Contains(l.NormalizedText(), "Zephyr") {
		t.Fatalf("eng+zzz: %v", err)
	}
	if err := CheckOCR(context.Background(), OCR{Languages: "eng+zzz"}); err == nil || !strings.Contains(err.Error(), "tesseract-ocr-zzz") ||
		strings.Contains(err.Error(), "tesseract-ocr-eng") {
		t.Errorf("CheckOCR: %v", err)
	}
	if err := CheckOCR(context.Background(), OCR{}); err != nil {
		t.Errorf("CheckOCR with English: %v", err)
	}
}

// fakeTesseract puts a tesseract that runs script in front of the real
// programs on PATH, and returns the file it writes its pid to.
func fakeTesseract(t *testing.T, script string) string {
	t.Helper()
	testenv.RequireOCR(t)
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "pid")
	body := "#!/bin/sh\necho $$ > " + pidFile + "\n" + script + "\n"
	if err := os.WriteFile(filepath.Join(dir, "tesseract"), []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	return pidFile
}

// An OCR program that hangs is killed with the sandbox at the parse
// deadline: the document fails with the timeout and how far OCR got, and
// the program does not outlive the parse.
func TestHungOCRIsKilledAtParseDeadline(t *testing.T) {
	pidFile := fakeTesseract(t, "exec sleep 600")
	data := testenv.ScannedPDF(t, testenv.ScanPage{Lines: invoiceLines}, testenv.ScanPage{Lines: minutesLines})
	start := time.Now()
	// Long enough for the sandbox to start and rasterize the pages under
	// a loaded CI machine (3 s once was not: the fake program never ran).
	_, err := Parser{Limits: Limits{Timeout: 10 * time.Second}}.Parse(context.Background(), data, "scan.pdf")
	if err == nil || !strings.Contains(err.Error(), "ingest.parse_timeout (10s) (OCR had read 0 of 2 scanned pages") {
		t.Fatalf("want the timeout with OCR's progress, got %v", err)
	}
	if d := time.Since(start); d > 40*time.Second {
		t.Fatalf("the parse took %s", d)
	}
	requireGone(t, pidFile)
}

// Cancelling the job's context kills a running OCR program at once.
func TestCancelKillsOCR(t *testing.T) {
	pidFile := fakeTesseract(t, "exec sleep 600")
	data := testenv.ScannedPDF(t, testenv.ScanPage{Lines: invoiceLines})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := Parser{}.Parse(ctx, data, "scan.pdf")
		done <- err
	}()
	waitFile(t, pidFile)
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("want context.Canceled, got %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the parse did not end after its context was cancelled")
	}
	requireGone(t, pidFile)
}

// An OCR program that floods its output is stopped at the bound and the
// document fails saying so.
func TestOCROutputIsBounded(t *testing.T) {
	fakeTesseract(t, "exec yes 'an endless page of text'")
	data := testenv.ScannedPDF(t, testenv.ScanPage{Lines: invoiceLines})
	_, err := Parser{Limits: Limits{Timeout: time.Minute}}.Parse(context.Background(), data, "scan.pdf")
	if err == nil || !strings.Contains(err.Error(), "tesseract wrote more than 1048576 bytes") {
		t.Fatalf("want the output bound, got %v", err)
	}
}

func waitFile(t *testing.T, path string) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if b, err := os.ReadFile(path); err == nil && len(b) > 0 && b[len(b)-1] == '\n' {
			return
		}
	}
	t.Fatalf("%s never appeared: the fake OCR program did not run", path)
}

// requireGone waits for the process whose pid is in pidFile to be gone (a
// zombie counts as gone: it runs no more).
func requireGone(t *testing.T, pidFile string) {
	t.Helper()
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatalf("the fake OCR program never ran: %v", err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		if err != nil || strings.Contains(string(stat), ") Z ") {
			return
		}
	}
	_ = syscall.Kill(pid, syscall.SIGKILL)
	out, _ := exec.Command("ps", "-o", "pid,ppid,stat,cmd", "-p", strconv.Itoa(pid)).CombinedOutput()
	t.Fatalf("the OCR program (pid %d) outlived the parse:\n%s", pid, out)
}

func equalPairs(a, b [][2]int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// Pages render at 300 dpi unless their longer side would pass 5000 px;
// sizes that make no sense render as Letter.
func TestOCRResolutionIsBounded(t *testing.T) {
	for _, tc := range []struct {
		w, h float64
		want int
	}{
		{612, 792, 300},         // Letter: 2550 × 3300 px
		{100, 100, 300},         // small pages are not enlarged past 300 dpi
		{2384, 3370, 106},       // A0: lowered to fit 5000 px
		{14400, 14400, 25},      // PDF's largest page (200 in)
		{1e9, 10, 1},            // a page metres wide: the least resolution
		{0, 0, 300},             // no size: taken as Letter
		{math.Inf(1), 792, 300}, // no sense: taken as Letter
		{math.NaN(), math.NaN(), 300},
	} {
		if got := ocrResolution(tc.w, tc.h); got != tc.want {
			t.Errorf("ocrResolution(%g, %g) = %d, want %d", tc.w, tc.h, got, tc.want)
		}
	}
}

// tesseract's text becomes paragraphs: blank lines separate them, wrapped
// lines are joined, a hyphen at a line's end joins without a space.
func TestOCRBlocks(t *testing.T) {
	got := ocrBlocks("First line of the\nparagraph goes on\nwith inter-\nnational trade.\n\nSecond paragraph.\n\f", 4)
	want := []document.Block{
		{Kind: document.BlockParagraph, Text: "First line of the paragraph goes on with inter-national trade.", Page: 4, OCR: true},
		{Kind: document.BlockParagraph, Text: "Second paragraph.", Page: 4, OCR: true},
	}
	assertBlocks(t, got, want)
	if len(ocrBlocks("\f", 1)) != 0 || len(ocrBlocks("", 1)) != 0 {
		t.Error("a blank page gave blocks")
	}
}

func TestHasText(t *testing.T) {
	for text, want := range map[string]bool{"": false, " . - _ ": false, "7": true, "é": true, "- page -": true} {
		if got := hasText([]document.Block{{Text: text}}); got != want {
			t.Errorf("hasText(%q) = %v", text, got)
		}
	}
}
