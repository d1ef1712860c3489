package ingest

import (
	"strings"
	"testing"
	"unicode/utf8"

	"ragd"
	"ragd/internal/ingest/document"
)

func TestMarkdownGoDebugDoc(t *testing.T) {
	l := mustParseFile(t, gorootFile(t, "doc/godebug.md"), ragd.SourceMarkdown)
	if l.Title != "Go, Backwards Compatibility, and GODEBUG" {
		t.Errorf("title from front matter = %q", l.Title)
	}
	if l.SourceType != ragd.SourceMarkdown {
		t.Errorf("type %q", l.SourceType)
	}
	headings := map[string]int{}
	for _, b := range l.Blocks {
		if b.Kind == document.BlockHeading {
			headings[b.Text] = b.Level
			if strings.Contains(b.Text, "{#") {
				t.Errorf("heading attribute left in text: %q", b.Text)
			}
		}
	}
	for h, lvl := range map[string]int{"Introduction": 2, "Default GODEBUG Values": 2, "GODEBUG History": 2, "Go 1.21": 3} {
		if headings[h] != lvl {
			t.Errorf("heading %q level %d, want %d (have %v)", h, headings[h], lvl, headings)
		}
	}
	if !hasBlock(l, document.BlockCode, "GODEBUG=http2client=0,http2server=0") {
		t.Error("fenced/indented code block missing")
	}
	if strings.Contains(l.NormalizedText(), "layout: article") {
		t.Error("front matter leaked into the text")
	}

	paths := map[string]bool{}
	for _, p := range Chunk(l, ChunkOptions{}) {
		paths[p.Path] = true
	}
	for _, want := range []string{
		"Go, Backwards Compatibility, and GODEBUG > Introduction",
		"Go, Backwards Compatibility, and GODEBUG > GODEBUG History > Go 1.21",
	} {
		if !paths[want] {
			t.Errorf("no chunk with path %q", want)
		}
	}
}

func TestMarkdownStructures(t *testing.T) {
	src := "\ufeffIntro line one\r\nline two\r\n\r\n" +
		"Setext Title\n============\n\n" +
		"Sub *section*\n-------------\n\n" +
		"Rules:\n\n- first [link](http://x) item\n- second `code` item\n  1. nested\n\n" +
		"```go\nfunc main() {\n\tprintln(1)\n}\n```\n\n" +
		"    indented code\n\n" +
		"| Name | Value |\n|------|-------|\n| a | 1 |\n\n" +
		"<div><p>raw html para</p></div>\n\n" +
		"### Deep\n\nLast.\n"
	l, err := Parse([]byte(src), ragd.SourceMarkdown, "notes.md")
	if err != nil {
		t.Fatal(err)
	}
	want := []document.Block{
		{Kind: document.BlockParagraph, Text: "Intro line one line two"},
		{Kind: document.BlockHeading, Level: 1, Text: "Setext Title"},
		{Kind: document.BlockHeading, Level: 2, Text: "Sub section"},
		{Kind: document.BlockParagraph, Text: "Rules:"},
		{Kind: document.BlockListItem, Text: "- first link item"},
		{Kind: document.BlockListItem, Text: "- second code item"},
		{Kind: document.BlockListItem, Text: "1. nested"},
		{Kind: document.BlockCode, Text: "func main() {\n    println(1)\n}"},
		{Kind: document.BlockCode, Text: "indented code"},
		{Kind: document.BlockTable, Text: "Name | Value"},
		{Kind: document.BlockTable, Text: "a | 1"},
		{Kind: document.BlockParagraph, Text: "raw html para"},
		{Kind: document.BlockHeading, Level: 3, Text: "Deep"},
		{Kind: document.BlockParagraph, Text: "Last."},
	}
	assertBlocks(t, l.Blocks, want)
	if l.Title != "Setext Title" {
		t.Errorf("title = %q (first level-1 heading)", l.Title)
	}
	l, _ = Parse([]byte("just text"), ragd.SourceMarkdown, "/some/dir/readme.md")
	if l.Title != "readme.md" {
		t.Errorf("fallback title = %q", l.Title)
	}
}

func hasBlock(l *document.Loaded, kind document.BlockKind, substr string) bool {
	for _, b := range l.Blocks {
		if b.Kind == kind && strings.Contains(b.Text, substr) {
			return true
		}
	}
	return false
}

// Backslash escapes and character references are resolved in text, so
// "SA\_ONSTACK" is indexed (and matched) as SA_ONSTACK; code spans keep
// their backslashes.
func TestMarkdownResolvesEscapes(t *testing.T) {
	src := "# Signals\n\nThe handler uses SA\\_ONSTACK for a \\[]byte &amp; a &#42; glob `a\\_b`.\n"
	l, err := Parse([]byte(src), ragd.SourceMarkdown, "escapes.md")
	if err != nil {
		t.Fatal(err)
	}
	want := "The handler uses SA_ONSTACK for a []byte & a * glob a\\_b."
	if !hasBlock(l, document.BlockParagraph, want) {
		t.Errorf("paragraph not unescaped: %+v", l.Blocks)
	}
}

// TestMarkdownCodeIsValidUTF8: a code block's bytes that are not UTF-8 are
// dropped, as in paragraphs. FuzzChunk found "```\n\xe30" kept as is, an
// invalid string in the chunk (and its summary) that cannot be stored.
func TestMarkdownCodeIsValidUTF8(t *testing.T) {
	for _, src := range []string{"```\n\xe30", "    indented \xff\xfe code\n", "para caf\xe9\n\n```go\nx := \"\xc3\"\n```\n"} {
		l, err := Parse([]byte(src), ragd.SourceMarkdown, "bad.md")
		if err != nil {
			t.Fatalf("%q: %v", src, err)
		}
		for _, b := range l.Blocks {
			if !utf8.ValidString(b.Text) {
				t.Errorf("%q: block %+v is not valid UTF-8", src, b)
			}
		}
		for _, p := range Chunk(l, ChunkOptions{}) {
			if !utf8.ValidString(p.Text) || !utf8.ValidString(p.Summary) {
				t.Errorf("%q: chunk %+v is not valid UTF-8", src, p)
			}
		}
	}
	l, _ := Parse([]byte("```\n\xe30"), ragd.SourceMarkdown, "bad.md")
	if len(l.Blocks) != 1 || l.Blocks[0].Text != "0" {
		t.Errorf("blocks %+v, want the code 0", l.Blocks)
	}
}

// Badges in a heading (linked images) are not part of its text: neither
// the title nor the heading paths read "Exponential Backoff GoDoc
// Coverage Status"; a picture in a paragraph keeps its alt text.
func TestBadgesLeaveHeadings(t *testing.T) {
	src := "# Exponential Backoff [![GoDoc](https://godoc.org/x.svg)](https://godoc.org/x) [![Coverage Status](https://c/x.svg)](https://c/x)\n\n" +
		"## Usage ![logo](l.png)\n\nSee ![the diagram of retries](d.png) for the schedule.\n"
	l, err := Parse([]byte(src), ragd.SourceMarkdown, "README.md")
	if err != nil {
		t.Fatal(err)
	}
	if l.Title != "Exponential Backoff" {
		t.Errorf("title %q", l.Title)
	}
	paths := map[string]bool{}
	for _, c := range Chunk(l, ChunkOptions{}) {
		paths[c.Path] = true
	}
	if !paths["Exponential Backoff > Usage"] {
		t.Errorf("heading paths %v, want Exponential Backoff > Usage", paths)
	}
	if !strings.Contains(l.NormalizedText(), "the diagram of retries") {
		t.Errorf("a paragraph's picture lost its alt text: %q", l.NormalizedText())
	}
}
