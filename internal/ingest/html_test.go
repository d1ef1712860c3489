package ingest

import (
	"os"
	"strings"
	"testing"
	"unicode/utf8"

	"ragd"
	"ragd/internal/ingest/document"
)

func TestHTMLGoMemoryModel(t *testing.T) {
	l := mustParseFile(t, gorootFile(t, "doc/go_mem.html"), ragd.SourceHTML)
	if l.Title != "The Go Memory Model" {
		t.Errorf("title = %q (no <title> or <h1>: its metadata comment's)", l.Title)
	}
	text := l.NormalizedText()
	if strings.Contains(text, "font-style") {
		t.Error("<style> content leaked")
	}
	if !hasBlock(l, document.BlockListItem, "- its location in the program,") {
		t.Error("list item missing")
	}
	if !hasBlock(l, document.BlockCode, "func hello() {\n    a = \"hello, world\"") {
		t.Error("<pre> lost its layout")
	}
	paths := map[string]bool{}
	for _, p := range Chunk(l, ChunkOptions{}) {
		paths[p.Path] = true
	}
	for _, want := range []string{
		"The Go Memory Model > Introduction > Advice",
		"The Go Memory Model > Synchronization > Channel communication",
		"The Go Memory Model > Incorrect synchronization",
	} {
		if !paths[want] {
			t.Errorf("no chunk with path %q", want)
		}
	}
}

func TestHTMLStructures(t *testing.T) {
	src := `<!doctype html><html><head><title> The  Page </title><style>p{}</style><script>var x = "no";</script></head>
<body><nav>Home | About</nav><header>Site header</header>
Loose body text
<div>Div <b>bold</b><i>italic</i> text<br>second line</div>
<h1>Main</h1>
<p>First   paragraph
   wrapped.</p>
<ul><li>one</li><li><p>two</p><ul><li>inner</li></ul></li></ul>
<ol start="3"><li>three</li></ol>
<pre>  keep   spacing
    here</pre>
<blockquote>Quoted words.</blockquote>
<table><thead><tr><th>K</th><th>V</th></tr></thead><tbody><tr><td>a</td><td>1</td></tr></tbody></table>
<dl><dt>Term</dt><dd>Definition</dd></dl>
<h2>Sub</h2><section>Section text</section>
<noscript>enable js</noscript><template>tmpl</template><svg><text>svg text</text></svg>
<footer>Copyright</footer></body></html>`
	l, err := Parse([]byte(src), ragd.SourceHTML, "page.html")
	if err != nil {
		t.Fatal(err)
	}
	want := []document.Block{
		{Kind: document.BlockParagraph, Text: "Loose body text"},
		{Kind: document.BlockParagraph, Text: "Div bolditalic text\nsecond line"},
		{Kind: document.BlockHeading, Level: 1, Text: "Main"},
		{Kind: document.BlockParagraph, Text: "First paragraph wrapped."},
		{Kind: document.BlockListItem, Text: "- one"},
		{Kind: document.BlockListItem, Text: "- two"},
		{Kind: document.BlockListItem, Text: "- inner"},
		{Kind: document.BlockListItem, Text: "3. three"},
		{Kind: document.BlockCode, Text: "  keep   spacing\n    here"},
		{Kind: document.BlockParagraph, Text: "Quoted words."},
		{Kind: document.BlockTable, Text: "K | V"},
		{Kind: document.BlockTable, Text: "a | 1"},
		{Kind: document.BlockParagraph, Text: "Term"},
		{Kind: document.BlockParagraph, Text: "Definition"},
		{Kind: document.BlockHeading, Level: 2, Text: "Sub"},
		{Kind: document.BlockParagraph, Text: "Section text"},
	}
	assertBlocks(t, l.Blocks, want)
	if l.Title != "The Page" {
		t.Errorf("title = %q", l.Title)
	}
	l, _ = Parse([]byte("<h1>Heading One</h1><p>x</p>"), ragd.SourceHTML, "https://example.com/docs/intro.html")
	if l.Title != "Heading One" {
		t.Errorf("title from h1 = %q", l.Title)
	}
}

func TestHTMLLegacyCharset(t *testing.T) {
	// "café" in windows-1252, declared by a meta tag
	src := []byte("<html><head><meta charset=\"windows-1252\"></head><body><p>caf\xe9</p></body></html>")
	l, err := Parse(src, ragd.SourceHTML, "old.html")
	if err != nil {
		t.Fatal(err)
	}
	if got := l.NormalizedText(); got != "café" {
		t.Errorf("text = %q", got)
	}
}

func TestHTMLWithoutTextIsParseError(t *testing.T) {
	_, err := Parse([]byte("<html><head><script>1</script></head><body>  <noscript>x</noscript></body></html>"), ragd.SourceHTML, "empty.html")
	assertParseError(t, err)
}

// swaggerPage is shaped like a Swagger UI page (openapi/assets/swagger-ui.html,
// the one the README's directory walk-through meets): a title, a mount
// point a script fills, a <noscript> line and scripts, no body text.
const swaggerPage = `<!DOCTYPE html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>Petstore API reference</title>
  <link rel="stylesheet" href="ui.css">
</head>
<body>
  <div id="ui"></div>
  <noscript>This page needs JavaScript.</noscript>
  <script src="ui-bundle.js"></script>
  <script>window.onload = () => { window.ui = UI({url: "spec.json"}) }</script>
</body>
</html>`

// TestHTMLScriptPageIsItsTitle: a page a script renders, with a title and
// no body text, is a document of its title (one paragraph, as a Markdown
// outline gets one of its headings), not a "no extractable text" failure
// of the README's own directory walk-through (openapi/assets/swagger-ui.html).
func TestHTMLScriptPageIsItsTitle(t *testing.T) {
	pages := map[string][]byte{"swagger-ui.html": []byte(swaggerPage)}
	if real, err := os.ReadFile("../server/openapi/assets/swagger-ui.html"); err == nil {
		pages["openapi/assets/swagger-ui.html"] = real
	}
	for name, page := range pages {
		l, err := Parse(page, ragd.SourceHTML, name)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if l.Title == "" || len(l.Blocks) == 0 || l.Blocks[0].Kind != document.BlockParagraph || l.Blocks[0].Text != l.Title {
			t.Errorf("%s: title %q, blocks %+v, want a paragraph of the title", name, l.Title, l.Blocks)
		}
		for _, b := range l.Blocks {
			if strings.Contains(b.Text, "JavaScript") || strings.Contains(b.Text, "onload") {
				t.Errorf("%s: block %q holds script or noscript text", name, b.Text)
			}
		}
	}
}

// TestHTMLPreIsValidUTF8: FuzzHTML found "<pre>·\xc8" (UTF-8 but for its
// last byte, so read as UTF-8) kept in a code block as is, invalid UTF-8.
func TestHTMLPreIsValidUTF8(t *testing.T) {
	l, err := Parse([]byte("<pre>\u00b7\xc8"), ragd.SourceHTML, "bad.html")
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Blocks) != 1 || l.Blocks[0].Kind != document.BlockCode || !utf8.ValidString(l.Blocks[0].Text) {
		t.Errorf("blocks %+v, want one code block of valid UTF-8", l.Blocks)
	}
}

// A title a document states for itself is cut to what a request may set,
// so an export of the document imports again (an import refuses longer).
func TestParseCutsLongTitles(t *testing.T) {
	long := strings.Repeat("tïtle ", 400) // 2,400 characters
	for _, tc := range []struct {
		typ ragd.SourceType
		doc string
	}{
		{ragd.SourceHTML, "<html><head><title>" + long + "</title></head><body><p>Body text.</p></body></html>"},
		{ragd.SourceMarkdown, "# " + long + "\n\nBody text.\n"},
	} {
		l, err := Parse([]byte(tc.doc), tc.typ, "doc")
		if err != nil {
			t.Fatal(err)
		}
		if n := utf8.RuneCountInString(l.Title); n > ragd.MaxTitleChars || n < ragd.MaxTitleChars-10 || !strings.HasSuffix(l.Title, "…") {
			t.Errorf("%s: title of %d characters (%q…), want at most %d ending in …", tc.typ, n, l.Title[:20], ragd.MaxTitleChars)
		}
	}
}

// A title ragd takes from a document shows as it reads: its bidirectional
// controls are stripped, from metadata, a heading and a file name alike.
func TestParseStripsBidiControlsFromTitles(t *testing.T) {
	for _, tc := range []struct {
		typ       ragd.SourceType
		doc, name string
	}{
		{ragd.SourceHTML, "<html><head><title>invoice\u202Efdp.exe</title></head><body><p>Body text.</p></body></html>", "doc"},
		{ragd.SourceMarkdown, "# invoice\u202Efdp.exe\n\nBody text.\n", "doc"},
		{ragd.SourceText, "Body text without a heading.\n", "invoice\u202Efdp.exe.txt"},
	} {
		l, err := Parse([]byte(tc.doc), tc.typ, tc.name)
		if err != nil {
			t.Fatal(err)
		}
		if r, ok := ragd.Disguising(l.Title); ok || !strings.Contains(l.Title, "invoicefdp.exe") {
			t.Errorf("%s: title %+q (holds %U)", tc.typ, l.Title, r)
		}
	}
}

// A page carrying its title in a metadata comment, as the Go
// documentation does, is titled by it, not by its file name; a <title>
// wins over it, and a comment that is not metadata is no title.
func TestMetadataCommentTitle(t *testing.T) {
	for page, want := range map[string]string{
		"<!--{\n\t\"Title\": \"The Go  Memory Model\",\n\t\"Subtitle\": \"Version of June 6, 2022\"\n}-->\n<h2>Introduction</h2><p>Text.</p>": "The Go Memory Model",
		"<!--{\"Title\": \"From metadata\"}--><html><head><title>From title</title></head><body><p>x</p></body></html>":                       "From title",
		"<!-- just a note --><p>Text.</p>":                  "page.html",
		"<!--{\"Title\": 7}--><p>Text.</p>":                 "page.html",
		"<!--{not json}--><h1>Heading one</h1><p>Text.</p>": "Heading one",
	} {
		l, err := Parse([]byte(page), ragd.SourceHTML, "page.html")
		if err != nil || l.Title != want {
			t.Errorf("title of %q: %q (%v), want %q", page, l.Title, err, want)
		}
	}
}
