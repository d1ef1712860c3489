package pdftext

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/pdfcpu/pdfcpu/pkg/api"

	"ragd/internal/testkit/testenv"
)

// ocrBenchPage is one page OCR is measured on: the scan, the same page
// with its text layer, and the words on it.
type ocrBenchPage struct {
	scan, typed []byte
	truth       string
}

// BenchmarkOCRPage measures reading one scanned page — render, OCR,
// paragraphs, in the sandbox — against the floor of reading the same page
// from its text layer, interleaved, and reports the share of the page's
// words OCR finds (recall). Pages: the test's own scan (12 pt Go Regular
// at 200 dpi, five lines), and two pages of pdfcpu's testdata — page 20 of
// The Go Programming Language's first chapter (a small book page: prose,
// headings, code) and page 5 of Adobe's PDF extensions supplement (a full
// Letter page of 9 pt prose) — each rendered by pdftoppm at 300 dpi into
// a JPEG of quality 75 and wrapped in a new PDF without its text layer.
// Their words are what poppler's pdftotext reads from the original
// (ragd's own text-layer reading runs the book's words together:
// "Thischapt erisatour").
func BenchmarkOCRPage(b *testing.B) {
	testenv.RequireOCR(b)
	pages := map[string]ocrBenchPage{
		"test-scan":   testScanPage(b),
		"gopl-page20": realScanPage(b, "TheGoProgrammingLanguageCh1.pdf", 20, 252, 406),
		"adobe-page5": realScanPage(b, "adobe_supplement_iso32000_1.pdf", 5, 612, 792),
	}
	for name, page := range pages {
		b.Run(name, func(b *testing.B) {
			var ocrTime, textTime time.Duration
			var got string
			for b.Loop() {
				start := time.Now()
				got = parsedText(b, page.scan, OCR{})
				ocrTime += time.Since(start)
				start = time.Now()
				_ = parsedText(b, page.typed, OCR{Off: true})
				textTime += time.Since(start)
			}
			n := float64(b.N)
			b.ReportMetric(float64(ocrTime.Milliseconds())/n, "ocr-ms/page")
			b.ReportMetric(float64(textTime.Milliseconds())/n, "text-layer-ms/page")
			b.ReportMetric(float64(ocrTime)/float64(textTime), "x-text-layer")
			b.ReportMetric(wordRecall(page.truth, got), "recall")
		})
	}
}

func testScanPage(b *testing.B) ocrBenchPage {
	lines := append(append([]string{}, invoiceLines...), minutesLines...)
	text := strings.Join(lines, " ")
	return ocrBenchPage{
		scan:  testenv.ScannedPDF(b, testenv.ScanPage{Lines: lines}),
		typed: testenv.OnePagePDF("<< /Type /Pages /Kids [3 0 R] /Count 1 >>", testenv.TextStream("BT /F1 12 Tf 72 720 Td ("+text+") Tj ET")),
		truth: text,
	}
}

// realScanPage is page nr of one of pdfcpu's test PDFs (w × h pt) as a
// scan and as itself.
func realScanPage(b *testing.B, file string, nr, w, h int) ocrBenchPage {
	path := testenv.ModuleFile(b, "github.com/pdfcpu/pdfcpu@v0.15.0", "pkg/testdata/"+file)
	pic, err := exec.Command("pdftoppm", "-f", strconv.Itoa(nr), "-l", strconv.Itoa(nr), "-r", "300", "-gray", "-jpeg", "-jpegopt", "quality=75", path).Output()
	if err != nil {
		b.Fatalf("pdftoppm: %v", err)
	}
	truth, err := exec.Command("pdftotext", "-q", "-f", strconv.Itoa(nr), "-l", strconv.Itoa(nr), path, "-").Output()
	if err != nil {
		b.Fatalf("pdftotext: %v", err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	var typed bytes.Buffer
	if err := api.Trim(bytes.NewReader(data), &typed, []string{strconv.Itoa(nr)}, pdfcpuConfig()); err != nil {
		b.Fatalf("trim to page %d: %v", nr, err)
	}
	return ocrBenchPage{scan: testenv.ScannedPDF(b, testenv.ScanPage{JPEG: pic, Width: w, Height: h}), typed: typed.Bytes(), truth: string(truth)}
}

func parsedText(b *testing.B, data []byte, o OCR) string {
	l, err := Parser{OCR: o}.Parse(context.Background(), data, "page.pdf")
	if err != nil {
		b.Fatal(err)
	}
	return l.NormalizedText()
}

// wordRecall is the share of truth's words (lower-cased, letters and
// digits, counted with repeats) that got holds too.
func wordRecall(truth, got string) float64 {
	have := map[string]int{}
	for _, w := range benchWords(got) {
		have[w]++
	}
	want := benchWords(truth)
	found := 0
	for _, w := range want {
		if have[w] > 0 {
			have[w]--
			found++
		}
	}
	return float64(found) / float64(max(len(want), 1))
}

func benchWords(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsNumber(r) })
}
