package pdf

import (
	"math/rand"
	"path/filepath"
	"strings"
	"testing"

	"ragd"
	"ragd/internal/testenv"
)

// storySentence is in every page of body text of the dslipak/pdf story
// fixtures (PDFs and the DOCX they were made from).
const storySentence = "Stet clita kasd gubergren, no sea takimata sanctus est Lorem ipsum dolor sit amet."

func storyPDFs(t *testing.T) []string {
	t.Helper()
	dir := filepath.Dir(moduleFile(t, pdfModule, "testdata/story.docx"))
	pdfs, err := filepath.Glob(filepath.Join(dir, "story_*.pdf"))
	if err != nil || len(pdfs) < 5 {
		t.Fatalf("story PDFs: %v %v", pdfs, err)
	}
	return pdfs
}

func TestPDFStoryFixtures(t *testing.T) {
	for _, p := range storyPDFs(t) {
		name := filepath.Base(p)
		t.Run(name, func(t *testing.T) {
			l, err := Parse(readFixture(t, p), ragd.SourcePDF, name)
			if err != nil {
				t.Fatal(err)
			}
			if l.SourceType != ragd.SourcePDF {
				t.Errorf("type %q", l.SourceType)
			}
			if strings.Contains(name, "Print-") {
				if l.Title != "Microsoft Word - story.docx" {
					t.Errorf("title from the info dictionary = %q", l.Title)
				}
			} else if l.Title != name {
				t.Errorf("fallback title = %q", l.Title)
			}
			text := l.NormalizedText()
			for _, want := range []string{storySentence, "TEST SUBTITLE", "Dadda Edda Fadda", "consetetur sadipscing elitr, sed diam nonumy eirmod"} {
				if !strings.Contains(text, want) {
					t.Errorf("text lacks %q", want)
				}
			}
			pages := map[int]bool{}
			blaPage := 0
			for _, b := range l.Blocks {
				if b.Kind != BlockParagraph {
					t.Errorf("PDF block of kind %d", b.Kind)
				}
				if b.Page < 1 || b.Page > 5 {
					t.Errorf("page %d", b.Page)
				}
				pages[b.Page] = true
				if strings.HasPrefix(b.Text, "Bla bla bla") {
					blaPage = b.Page // the section's heading, not its table of contents entry
				}
			}
			if blaPage != 4 {
				t.Errorf("section 'Bla bla bla' starts on page %d, want 4", blaPage)
			}
			if len(pages) != 5 {
				t.Errorf("pages with text: %v", pages)
			}
			pieces := Chunk(l, ChunkOptions{Tokens: 64})
			if len(pieces) == 0 || pieces[0].Page != 1 || pieces[len(pieces)-1].Page != 5 {
				t.Errorf("chunk pages: first %d last %d", pieces[0].Page, pieces[len(pieces)-1].Page)
			}
		})
	}
}

func TestPDFBrokenInputs(t *testing.T) {
	good := readFixture(t, storyPDFs(t)[0])
	rng := rand.New(rand.NewSource(1))
	random := make([]byte, 4096)
	rng.Read(random)
	inputs := map[string][]byte{
		"empty.pdf":     {},
		"random.pdf":    random,
		"header.pdf":    []byte("%PDF-1.7\n"),
		"text.pdf":      []byte("this is not a PDF at all\n%%EOF\n"),
		"truncated.pdf": good[:len(good)/2],
		"headless.pdf":  good[len(good)/3:],
	}
	for name, data := range inputs {
		t.Run(name, func(t *testing.T) {
			_, err := Parse(data, ragd.SourcePDF, name)
			pe := assertParseError(t, err)
			if !strings.HasPrefix(pe.Error(), `cannot read PDF "`+name+`"`) {
				t.Errorf("message = %q", pe.Error())
			}
		})
	}
	// many truncation points and garbage spliced into a real file: an error
	// or a result, never a panic
	for cut := 64; cut < len(good); cut += len(good) / 23 {
		if _, err := Parse(good[:cut], ragd.SourcePDF, "cut.pdf"); err != nil {
			assertParseError(t, err)
		}
		spliced := append([]byte(nil), good...)
		copy(spliced[cut:], random[:min(512, len(good)-cut)])
		if _, err := Parse(spliced, ragd.SourcePDF, "spliced.pdf"); err != nil {
			assertParseError(t, err)
		}
	}
}

func TestPDFWithoutTextIsParseError(t *testing.T) {
	// a valid one-page PDF with no content stream, like a scan without OCR
	pdf := testenv.MinimalPDF("")
	_, err := Parse(pdf, ragd.SourcePDF, "scan.pdf")
	pe := assertParseError(t, err)
	if !strings.Contains(pe.Error(), "no extractable text") {
		t.Errorf("message = %q", pe.Error())
	}
	l, err := Parse(testenv.MinimalPDF("BT /F1 12 Tf 72 720 Td (Hello from a tiny PDF.) Tj ET"), ragd.SourcePDF, "tiny.pdf")
	if err != nil {
		t.Fatal(err)
	}
	if got := l.NormalizedText(); got != "Hello from a tiny PDF." {
		t.Errorf("text = %q", got)
	}
}
