package library

import (
	"fmt"
	"strings"
	"testing"

	"ragd"
	"ragd/internal/ingest"
	"ragd/internal/ingest/document"
)

func sentences(tag string, n int) string {
	s := make([]string, n)
	for i := range s {
		s[i] = fmt.Sprintf("The %s sentence number %d says one thing.", tag, i)
	}
	return strings.Join(s, " ")
}

// chunked is what the worker stores for a loaded document.
func chunked(d *document.Loaded, opt ingest.ChunkOptions) []ragd.Chunk {
	var out []ragd.Chunk
	for i, p := range ingest.Chunk(d, opt) {
		out = append(out, ragd.Chunk{Index: i, Text: p.Text, Path: p.Path, Level: p.Level})
	}
	return out
}

func markdownOf(title string, chunks []ragd.Chunk) string {
	w := newMarkdownWriter(title)
	for _, c := range chunks {
		w.add(c)
	}
	return w.String()
}

// The document's text comes back whole from its chunks, however small they
// are: headings at their levels where the trail changes, paragraphs and
// list items as written, and not one sentence of the chunks' overlap twice.
func TestMarkdownRebuildsTheDocument(t *testing.T) {
	blocks := []document.Block{
		{Kind: document.BlockParagraph, Text: "Intro for everyone."},
		{Kind: document.BlockHeading, Level: 1, Text: "Install"},
		{Kind: document.BlockParagraph, Text: sentences("install", 12)},
		{Kind: document.BlockParagraph, Text: sentences("second", 5)},
		{Kind: document.BlockHeading, Level: 2, Text: "Linux"},
		{Kind: document.BlockParagraph, Text: "Use apt."},
		{Kind: document.BlockListItem, Text: "- one"},
		{Kind: document.BlockListItem, Text: "- two"},
		{Kind: document.BlockHeading, Level: 1, Text: "Usage"},
		{Kind: document.BlockHeading, Level: 2, Text: "Flags"},
		{Kind: document.BlockHeading, Level: 3, Text: "Verbose"},
		{Kind: document.BlockParagraph, Text: sentences("verbose", 9)},
	}
	d := &document.Loaded{Title: "Manual", SourceType: ragd.SourceMarkdown, Blocks: blocks}
	want := "# Manual\n\nIntro for everyone.\n\n# Install\n\n" + sentences("install", 12) + "\n\n" + sentences("second", 5) +
		"\n\n## Linux\n\nUse apt.\n\n- one\n- two\n\n# Usage\n\n## Flags\n\n### Verbose\n\n" + sentences("verbose", 9) + "\n"
	for _, opt := range []ingest.ChunkOptions{{Tokens: 40, Overlap: 20}, {Tokens: 64, Overlap: 12}, {}} {
		chunks := chunked(d, opt)
		if opt.Tokens == 40 && len(chunks) < 8 {
			t.Fatalf("only %d chunks: the test needs sections split across chunks", len(chunks))
		}
		overlapping := 0
		for i := 1; i < len(chunks); i++ {
			if chunks[i].Path == chunks[i-1].Path && overlapLen(chunks[i-1].Text, chunks[i].Text) > 0 {
				overlapping++
			}
		}
		if opt.Tokens == 40 && overlapping == 0 {
			t.Fatal("no chunk repeats its predecessor's end: the overlap is not exercised")
		}
		if got := markdownOf("Manual", chunks); got != want {
			t.Errorf("options %+v (%d chunks, %d overlapping):\n got %q\nwant %q", opt, len(chunks), overlapping, got, want)
		}
	}
}

// The title is not repeated when the document's top heading is the title,
// and a document without headings or title is its text.
func TestMarkdownTitleAndPlainText(t *testing.T) {
	d := &document.Loaded{Title: "Guide", Blocks: []document.Block{
		{Kind: document.BlockHeading, Level: 1, Text: "Guide"},
		{Kind: document.BlockParagraph, Text: "Read me."},
		{Kind: document.BlockHeading, Level: 2, Text: "Part"},
		{Kind: document.BlockParagraph, Text: "More."},
	}}
	if got, want := markdownOf("Guide", chunked(d, ingest.ChunkOptions{})), "# Guide\n\nRead me.\n\n## Part\n\nMore.\n"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	plain := &document.Loaded{Blocks: []document.Block{{Kind: document.BlockParagraph, Text: "Just text."}}}
	if got := markdownOf("", chunked(plain, ingest.ChunkOptions{})); got != "Just text.\n" {
		t.Errorf("plain: %q", got)
	}
}

// Only whole trailing sentences followed by the text that goes on count
// as overlap; a chunk is never all overlap.
func TestOverlapLen(t *testing.T) {
	for _, c := range []struct {
		prev, next string
		want       int
	}{
		{"One. Two. Three.", "Two. Three. Four.", len("Two. Three.")},
		{"One. Two. Three.", "Three. Four.", len("Three.")},
		{"One. Two.", "wo. Three.", 0},             // not at a sentence start in prev
		{"One. Two.", "Two.", 0},                   // all of next
		{"Two.", "Two. Three.", 0},                 // all of prev
		{"One. Two.", "Two.Three.", 0},             // no separator after it in next
		{"One. Two.", "Other. Text.", 0},           // nothing shared
		{"A b. A b.", "A b. A b. C.", len("A b.")}, // the longest repeat that starts after a space in prev
	} {
		if got := overlapLen(c.prev, c.next); got != c.want {
			t.Errorf("overlapLen(%q, %q) = %d, want %d", c.prev, c.next, got, c.want)
		}
	}
}

func TestFrontMatter(t *testing.T) {
	got := FrontMatter(ragd.Document{ID: "d1", Namespace: "kb", Title: `Say "hi"`, Source: "/x.md", SourceType: ragd.SourceMarkdown, Chunks: 3})
	want := "---\ntitle: \"Say \\\"hi\\\"\"\ndocument_id: \"d1\"\nkb_name: \"kb\"\nsource: \"/x.md\"\nsource_type: \"md\"\ntags: []\nchunks: 3\n---\n\n"
	if got != want {
		t.Errorf("got %q\nwant %q", got, want)
	}
}
