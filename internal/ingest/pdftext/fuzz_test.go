package pdftext

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"ragd"
	"ragd/internal/ingest/document"
	"ragd/internal/testkit/parsetest"
	"ragd/internal/testkit/testenv"
)

// The PDF reader's fuzz targets. Each input must come back within its
// bound (no hang, no balloon) as a document or a *document.ParseError,
// never a panic; a document has blocks and valid UTF-8 text. Seeds are
// real documents read where they are on this machine (the module cache);
// testdata/fuzz holds only crashers found.

// fuzzMaxPages keeps the fuzzed PDF parse small: the page limit is checked
// before any page is read, so a small one bounds the work as a large one
// does.
const fuzzMaxPages = 50

func pdfSeeds(f *testing.F) {
	dir := filepath.Dir(testenv.ModuleFile(f, pdfcpuModule, "pkg/testdata/test.pdf"))
	story := filepath.Dir(testenv.ModuleFile(f, pdfModule, "testdata/story.docx"))
	for _, b := range testenv.SeedFiles(f, 48<<10, 24, filepath.Join(dir, "*.pdf"), filepath.Join(story, "*.pdf")) {
		f.Add(b)
	}
	f.Add(testenv.MinimalPDF("BT /F1 12 Tf 72 720 Td (Hello fuzzing world) Tj ET"))
	f.Add(testenv.CyclicPDF())
	f.Add(testenv.HugeCountPDF(1 << 30))
}

// FuzzParsePDF fuzzes the parse the sandbox child runs (LZW recoding, then
// the text), in-process and without OCR, so the fuzzer sees its coverage.
// The heap bound stands in for the child's memory budget. An input that
// makes the library recurse until the stack overflows kills the fuzzing
// process (no recover catches that): such an input belongs in
// FuzzPDFSandbox's corpus, where the child dies of it and the parent
// reports it (TestPDFResolveRecursionIsParseError); scripts/fuzz.sh
// recognises the class and moves it there.
func FuzzParsePDF(f *testing.F) {
	pdfSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		testenv.Within(t, testenv.DefaultBound, func() {
			l, err := parsePDF(readablePDF(data, 64<<20), "fuzz.pdf", fuzzMaxPages, OCR{Off: true}, nil)
			if err == nil {
				l, err = document.Finish(l, ragd.SourcePDF, "fuzz.pdf")
			}
			parsetest.CheckLoaded(t, ragd.SourcePDF, l, err)
		})
	})
}

// FuzzPDFSandbox sends inputs through the real path: a child process per
// input, killed at its deadline, within its memory budget. It is slow (a
// process start an input), so make test runs it for a few inputs only.
func FuzzPDFSandbox(f *testing.F) {
	pdfSeeds(f)
	p := Parser{Limits: Limits{MaxPages: fuzzMaxPages, Timeout: 5 * time.Second, MemoryBytes: 256 << 20}, Images: true, OCR: OCR{Off: true}}
	f.Fuzz(func(t *testing.T, data []byte) {
		// the parent only waits for the child: its own heap stays small
		testenv.Within(t, testenv.Bound{Time: p.Limits.Timeout + 10*time.Second, Heap: 64 << 20}, func() {
			l, err := p.Parse(context.Background(), data, "fuzz.pdf")
			parsetest.CheckLoaded(t, ragd.SourcePDF, l, err)
			if err == nil && l.ImagesErr != nil {
				var pe *document.ParseError
				if !errors.As(l.ImagesErr, &pe) {
					t.Fatalf("images error %T %q is not a *ParseError", l.ImagesErr, l.ImagesErr)
				}
			}
		})
	})
}
