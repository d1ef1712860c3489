package ingest

import (
	"path/filepath"
	"testing"

	"ragd"
	"ragd/internal/testkit/parsetest"
	"ragd/internal/testkit/testenv"
)

// The loaders' fuzz targets. Each input must come back within
// testenv.DefaultBound (no hang, no balloon) as a document or a
// *document.ParseError, never a panic; a document has blocks and valid UTF-8 text.
// Seeds are real documents read where they are on this machine (the module
// cache, the Go distribution); testdata/fuzz holds only crashers found.

// fuzzSeedBytes caps a seed: the fuzzer mutates all of it, and a large seed
// only makes each run slower.
const fuzzSeedBytes = 128 << 10

// FuzzHTML fuzzes the HTML loader, charset sniffing included.
func FuzzHTML(f *testing.F) {
	for _, b := range testenv.SeedFiles(f, fuzzSeedBytes, 8, filepath.Join(testenv.GorootFile(f, "doc"), "*.html")) {
		f.Add(b)
	}
	f.Add([]byte(`<html><head><meta charset="iso-8859-1"><title>Caf` + "\xe9" + `</title></head><body><h1>A</h1><p>b <b>c</b></p><pre>code</pre><table><tr><td>x</td></tr></table></body></html>`))
	f.Fuzz(func(t *testing.T, data []byte) {
		testenv.Within(t, testenv.DefaultBound, func() {
			l, err := Parse(data, ragd.SourceHTML, "fuzz.html")
			parsetest.CheckLoaded(t, ragd.SourceHTML, l, err)
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
			parsetest.CheckLoaded(t, ragd.SourceMarkdown, l, err)
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
			parsetest.CheckLoaded(t, ragd.SourceText, l, err)
		})
	})
}
