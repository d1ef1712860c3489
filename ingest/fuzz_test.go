package ingest

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"ragd"
	"ragd/internal/testenv"
)

// The loaders' fuzz targets. Each input must come back within
// testenv.DefaultBound (no hang, no balloon) as a document or a
// *ParseError, never a panic; a document has blocks and valid UTF-8 text.
// Seeds are real documents read where they are on this machine (the module
// cache, the Go distribution); testdata/fuzz holds only crashers found.

// fuzzSeedBytes caps a seed: the fuzzer mutates all of it, and a large seed
// only makes each run slower.
const fuzzSeedBytes = 128 << 10

// fuzzMaxPages keeps the fuzzed PDF parse small: the page limit is checked
// before any page is read, so a small one bounds the work as a large one
// does.
const fuzzMaxPages = 50

// checkLoaded asserts what every loader promises for any input.
func checkLoaded(t *testing.T, typ ragd.SourceType, l *Loaded, err error) {
	t.Helper()
	if err != nil {
		var pe *ParseError
		if !errors.As(err, &pe) {
			t.Fatalf("error %T %q is not a *ParseError", err, err)
		}
		if !utf8.ValidString(err.Error()) {
			t.Fatalf("error message is not valid UTF-8: %q", err.Error())
		}
		return
	}
	if l == nil || len(l.Blocks) == 0 {
		t.Fatalf("no error and no blocks: %+v", l)
	}
	if l.SourceType != typ {
		t.Fatalf("source type %q, want %q", l.SourceType, typ)
	}
	if !utf8.ValidString(l.Title) || l.Title == "" {
		t.Fatalf("title %q empty or not valid UTF-8", l.Title)
	}
	for i, b := range l.Blocks {
		if !utf8.ValidString(b.Text) || strings.TrimSpace(b.Text) == "" {
			t.Fatalf("block %d %+v: empty or not valid UTF-8", i, b)
		}
		if typ == ragd.SourcePDF && b.Page < 1 {
			t.Fatalf("PDF block %d without a page: %+v", i, b)
		}
	}
}

func pdfSeeds(f *testing.F) {
	dir := filepath.Dir(testenv.ModuleFile(f, pdfcpuModule, "pkg/testdata/test.pdf"))
	story := filepath.Dir(testenv.ModuleFile(f, pdfModule, "testdata/story.docx"))
	for _, b := range testenv.SeedFiles(f, 48<<10, 24, filepath.Join(dir, "*.pdf"), filepath.Join(story, "*.pdf")) {
		f.Add(b)
	}
	f.Add(minimalPDF("BT /F1 12 Tf 72 720 Td (Hello fuzzing world) Tj ET"))
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
				l, err = finish(l, ragd.SourcePDF, "fuzz.pdf")
			}
			checkLoaded(t, ragd.SourcePDF, l, err)
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
			l, err := p.Parse(context.Background(), data, ragd.SourcePDF, "fuzz.pdf")
			checkLoaded(t, ragd.SourcePDF, l, err)
			if err == nil && l.ImagesErr != nil {
				var pe *ParseError
				if !errors.As(l.ImagesErr, &pe) {
					t.Fatalf("images error %T %q is not a *ParseError", l.ImagesErr, l.ImagesErr)
				}
			}
		})
	})
}

// FuzzDOCX fuzzes the DOCX reader, pictures included; its declared budget
// (docx_limits.go) bounds the heap.
func FuzzDOCX(f *testing.F) {
	mc := testenv.ModCache(f)
	for _, b := range testenv.SeedFiles(f, fuzzSeedBytes, 12,
		testenv.ModuleFile(f, pdfModule, "testdata/story.docx"),
		filepath.Join(mc, "github.com/*/*@*/*.docx"), filepath.Join(mc, "github.com/*/*@*/test*/*.docx")) {
		f.Add(b)
	}
	doc := `<w:document ` + wordNS + `><w:body><w:p><w:pPr><w:pStyle w:val="Heading1"/></w:pPr><w:r><w:t>Title</w:t></w:r></w:p>` +
		`<w:p><w:r><w:t xml:space="preserve">Body text, </w:t></w:r><w:r><w:t>more.</w:t></w:r></w:p>` +
		`<w:tbl><w:tr><w:tc><w:p><w:r><w:t>a</w:t></w:r></w:p></w:tc><w:tc><w:p><w:r><w:t>1</w:t></w:r></w:p></w:tc></w:tr></w:tbl></w:body></w:document>`
	styles := `<?xml version="1.0"?><w:styles ` + wordNS + `><w:style w:type="paragraph" w:styleId="Heading1"><w:name w:val="heading 1"/></w:style></w:styles>`
	f.Add(buildDOCX(f, map[string]string{"word/document.xml": doc, "word/styles.xml": styles,
		"docProps/core.xml": `<cp:coreProperties xmlns:cp="x" xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title>T</dc:title></cp:coreProperties>`}))
	f.Fuzz(func(t *testing.T, data []byte) {
		testenv.Within(t, testenv.Bound{Time: testenv.DefaultBound.Time, Heap: 4 * docxMemoryBudget}, func() {
			l, err := Parser{Images: true}.Parse(context.Background(), data, ragd.SourceDOCX, "fuzz.docx")
			checkLoaded(t, ragd.SourceDOCX, l, err)
		})
	})
}

// FuzzHTML fuzzes the HTML loader, charset sniffing included.
func FuzzHTML(f *testing.F) {
	for _, b := range testenv.SeedFiles(f, fuzzSeedBytes, 8, filepath.Join(testenv.GorootFile(f, "doc"), "*.html")) {
		f.Add(b)
	}
	f.Add([]byte(`<html><head><meta charset="iso-8859-1"><title>Caf` + "\xe9" + `</title></head><body><h1>A</h1><p>b <b>c</b></p><pre>code</pre><table><tr><td>x</td></tr></table></body></html>`))
	f.Fuzz(func(t *testing.T, data []byte) {
		testenv.Within(t, testenv.DefaultBound, func() {
			l, err := Parse(data, ragd.SourceHTML, "fuzz.html")
			checkLoaded(t, ragd.SourceHTML, l, err)
		})
	})
}

// markdownSeeds are READMEs of the modules in the cache and the Go
// distribution's Markdown.
func markdownSeeds(f *testing.F) [][]byte {
	return testenv.SeedFiles(f, 32<<10, 24, filepath.Join(testenv.ModCache(f), "github.com/*/*@*/README.md"),
		filepath.Join(testenv.GorootFile(f, "doc"), "*.md"))
}

// FuzzMarkdown fuzzes the Markdown loader.
func FuzzMarkdown(f *testing.F) {
	for _, b := range markdownSeeds(f) {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		testenv.Within(t, testenv.DefaultBound, func() {
			l, err := Parse(data, ragd.SourceMarkdown, "fuzz.md")
			checkLoaded(t, ragd.SourceMarkdown, l, err)
		})
	})
}

// FuzzText fuzzes the plain-text loader: encodings, BOMs, line endings.
func FuzzText(f *testing.F) {
	for _, b := range testenv.SeedFiles(f, 32<<10, 8, testenv.GorootFile(f, "LICENSE"), testenv.GorootFile(f, "README.md"),
		filepath.Join(testenv.ModCache(f), "github.com/*/*@*/LICENSE")) {
		f.Add(b)
	}
	f.Add([]byte("\xff\xfeh\x00i\x00\r\x00\n\x00"))
	f.Add([]byte("caf\xe9 cr\xe8me\r\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		testenv.Within(t, testenv.DefaultBound, func() {
			l, err := Parse(data, ragd.SourceText, "fuzz.txt")
			checkLoaded(t, ragd.SourceText, l, err)
		})
	})
}
