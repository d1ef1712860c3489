package ingest

import (
	"testing"

	"ragd"
	"ragd/internal/ingest/document"
)

func TestTextParagraphs(t *testing.T) {
	l, err := Parse([]byte("\ufeffFirst line\r\nstill first\r\n\r\n  \r\nSecond\tparagraph\n"), ragd.SourceText, "/x/notes.txt")
	if err != nil {
		t.Fatal(err)
	}
	want := []document.Block{
		{Kind: document.BlockParagraph, Text: "First line\nstill first"},
		{Kind: document.BlockParagraph, Text: "Second paragraph"},
	}
	if len(l.Blocks) != 2 || l.Blocks[0] != want[0] || l.Blocks[1] != want[1] {
		t.Errorf("blocks = %+v", l.Blocks)
	}
	if l.Title != "notes.txt" || l.SourceType != ragd.SourceText {
		t.Errorf("title %q type %q", l.Title, l.SourceType)
	}
}

func TestTextRejectsBinary(t *testing.T) {
	for name, data := range map[string][]byte{
		"latin1.txt": []byte("caf\xe9 au lait"),
		"nul.txt":    []byte("abc\x00def"),
		"png.txt":    {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n', 0, 0, 0, 13},
	} {
		_, err := Parse(data, ragd.SourceText, name)
		pe := assertParseError(t, err)
		if pe.Source != name {
			t.Errorf("source = %q", pe.Source)
		}
	}
}

func TestLigaturesAreFolded(t *testing.T) {
	l, err := Parse([]byte("Animated Lissajous \uFB01gures, e\uFB00ects and \uFB02ows."), ragd.SourceText, "x.txt")
	if err != nil {
		t.Fatal(err)
	}
	if got := l.NormalizedText(); got != "Animated Lissajous figures, effects and flows." {
		t.Fatalf("got %q", got)
	}
}
