package document

import (
	"testing"

	"ragd"
)

func TestFallbackTitle(t *testing.T) {
	for in, want := range map[string]string{
		"/a/b/report.pdf":                   "report.pdf",
		"notes.txt":                         "notes.txt",
		"https://example.com/docs/My%20Doc": "My Doc",
		"https://example.com/":              "example.com",
		"https://example.com":               "example.com",
	} {
		if got := fallbackTitle(in); got != want {
			t.Errorf("fallbackTitle(%q) = %q, want %q", in, got, want)
		}
	}
}

// A document of headings only gets a paragraph of their text; one with
// any body keeps its blocks as they are.
func TestFinishHeadingsOnly(t *testing.T) {
	l, err := Finish(&Loaded{Blocks: []Block{{Kind: BlockHeading, Level: 1, Text: "Tools"}, {Kind: BlockHeading, Level: 2, Text: " Go "}}}, ragd.SourceMarkdown, "3-tools.md")
	if err != nil || len(l.Blocks) != 3 || l.Blocks[0] != (Block{Kind: BlockParagraph, Text: "Tools\nGo"}) || l.Title != "Tools" {
		t.Fatalf("headings only: %+v, %v", l, err)
	}
	l, err = Finish(&Loaded{Blocks: []Block{{Kind: BlockHeading, Level: 1, Text: "Tools"}, {Kind: BlockParagraph, Text: "Go."}}}, ragd.SourceMarkdown, "t.md")
	if err != nil || len(l.Blocks) != 2 || l.Blocks[0].Kind != BlockHeading {
		t.Fatalf("with a body: %+v, %v", l, err)
	}
}
