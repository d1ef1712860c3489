package pdftext_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"ragd"
	"ragd/internal/ingest"
	"ragd/internal/ingest/document"
	"ragd/internal/ingest/pdftext"
	"ragd/internal/testkit/parsetest"
	"ragd/internal/testkit/testenv"
)

// The story fixtures, read as ingest reads them and then chunked: the
// chunking is ingest's, so this test sits outside the package.

func TestPDFStoryFixtures(t *testing.T) {
	for _, p := range parsetest.StoryPDFs(t) {
		name := filepath.Base(p)
		t.Run(name, func(t *testing.T) {
			l, err := pdftext.Parser{}.Parse(context.Background(), testenv.ReadFile(t, p), name)
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
			for _, want := range []string{parsetest.StorySentence, "TEST SUBTITLE", "Dadda Edda Fadda", "consetetur sadipscing elitr, sed diam nonumy eirmod"} {
				if !strings.Contains(text, want) {
					t.Errorf("text lacks %q", want)
				}
			}
			pages := map[int]bool{}
			blaPage := 0
			for _, b := range l.Blocks {
				if b.Kind != document.BlockParagraph {
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
			pieces := ingest.Chunk(l, ingest.ChunkOptions{Tokens: 64})
			if len(pieces) == 0 || pieces[0].Page != 1 || pieces[len(pieces)-1].Page != 5 {
				t.Errorf("chunk pages: first %d last %d", pieces[0].Page, pieces[len(pieces)-1].Page)
			}
		})
	}
}
