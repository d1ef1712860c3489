package docx_test

import (
	"strconv"
	"strings"
	"testing"

	"ragd/internal/ingest"
	"ragd/internal/ingest/document"
	"ragd/internal/ingest/docx"
	"ragd/internal/testkit/parsetest"
	"ragd/internal/testkit/testenv"
)

// The story fixture, read as ingest reads it and then chunked: the
// chunking is ingest's, so this test sits outside the package.

func mustParse(t *testing.T, path string) *document.Loaded {
	t.Helper()
	l, err := docx.Parse(testenv.ReadFile(t, path), path, false)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func TestDOCXStoryFixture(t *testing.T) {
	l := mustParse(t, testenv.ModuleFile(t, testenv.PDFModule, "testdata/story.docx"))
	if l.Title != "Test File" {
		t.Errorf("title from core.xml = %q", l.Title)
	}
	var headings []string
	for _, b := range l.Blocks {
		if b.Kind == document.BlockHeading {
			headings = append(headings, b.Text+"/"+strconv.Itoa(b.Level))
		}
		if strings.HasSuffix(b.Text, "cabba2") || b.Text == "Table of Contents" {
			t.Errorf("table of contents entry kept: %q", b.Text)
		}
	}
	want := "Test File/1 Abba babba cabba/1 Bla bla bla/1 Dadda Edda Fadda/1"
	if got := strings.Join(headings, " "); got != want {
		t.Errorf("headings = %q, want %q", got, want)
	}
	text := l.NormalizedText()
	if !strings.Contains(text, parsetest.StorySentence) || !strings.Contains(text, "TEST SUBTITLE") {
		t.Error("story text missing")
	}
	if strings.Count(text, "TEST SUBTITLE") != 1 {
		t.Error("mc:Fallback content duplicated the cover page")
	}
	paths := map[string]int{}
	for _, p := range ingest.Chunk(l, ingest.ChunkOptions{Tokens: 100}) {
		paths[p.Path]++
	}
	if paths["Test File > Bla bla bla"] == 0 || paths["Test File > Dadda Edda Fadda"] == 0 {
		t.Errorf("paths = %v", paths)
	}
}
