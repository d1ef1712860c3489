package docx

import (
	"path/filepath"
	"testing"

	"ragd"
	"ragd/internal/testkit/parsetest"
	"ragd/internal/testkit/testenv"
)

// fuzzSeedBytes caps a seed: the fuzzer mutates all of it, and a large seed
// only makes each run slower.
const fuzzSeedBytes = 128 << 10

// FuzzDOCX fuzzes the DOCX reader, pictures included; its declared budget
// (limits.go) bounds the heap.
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
			l, err := Parse(data, "fuzz.docx", true)
			parsetest.CheckLoaded(t, ragd.SourceDOCX, l, err)
		})
	})
}
