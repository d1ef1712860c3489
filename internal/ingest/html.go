package ingest

import (
	"bytes"
	"cmp"
	"encoding/json"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
	"golang.org/x/net/html/charset"

	"ragd"
	"ragd/internal/ingest/document"
)

// parseHTML extracts the readable text of a page. Pages that are not UTF-8
// are decoded by the charset their <meta> declares (or a sniffed one).
func parseHTML(data []byte, name string) (*document.Loaded, error) {
	var r io.Reader = bytes.NewReader(data)
	if !utf8.Valid(data) {
		enc, _, _ := charset.DetermineEncoding(data, "text/html")
		r = enc.NewDecoder().Reader(r)
	}
	doc, err := html.Parse(r)
	if err != nil {
		return nil, &document.ParseError{Source: name, Type: ragd.SourceHTML, Err: err}
	}
	w := &htmlWalker{}
	w.walk(doc)
	w.flush()
	title := cmp.Or(w.title, w.metaTitle)
	return &document.Loaded{Title: title, Blocks: titleOnlyBody(w.blocks, title)}, nil
}

// titleOnlyBody gives a page whose body has no text (a page a script
// renders, such as a Swagger UI page, whose <body> holds only a mount
// point and <noscript>) its title as a level-1 heading, so it is indexed
// as a document of its title (document.Finish gives a heading-only
// document a paragraph of its headings, as for a Markdown outline)
// rather than failing as one without text. A page with text, or without
// a title, keeps its blocks.
func titleOnlyBody(blocks []document.Block, title string) []document.Block {
	for _, b := range blocks {
		if strings.TrimSpace(b.Text) != "" {
			return blocks
		}
	}
	if strings.TrimSpace(title) == "" {
		return blocks
	}
	return []document.Block{{Kind: document.BlockHeading, Level: 1, Text: title}}
}

// htmlFragmentBlocks extracts blocks from an HTML snippet (raw HTML inside
// Markdown).
func htmlFragmentBlocks(s string) []document.Block {
	doc, err := html.Parse(strings.NewReader(s))
	if err != nil {
		return nil
	}
	w := &htmlWalker{}
	w.walk(doc)
	w.flush()
	return w.blocks
}

// htmlSkip holds elements whose content is not document text: code,
// styling, navigation and page chrome.
var htmlSkip = map[atom.Atom]bool{
	atom.Script: true, atom.Style: true, atom.Noscript: true, atom.Nav: true,
	atom.Header: true, atom.Footer: true, atom.Template: true, atom.Svg: true,
	atom.Math: true, atom.Iframe: true, atom.Object: true, atom.Select: true,
	atom.Button: true, atom.Head: true,
}

// htmlBreak holds block-level elements that end the running paragraph.
var htmlBreak = map[atom.Atom]bool{
	atom.P: true, atom.Div: true, atom.Section: true, atom.Article: true,
	atom.Main: true, atom.Aside: true, atom.Blockquote: true, atom.Dl: true,
	atom.Dt: true, atom.Dd: true, atom.Figure: true, atom.Figcaption: true,
	atom.Address: true, atom.Details: true, atom.Summary: true, atom.Form: true,
	atom.Fieldset: true, atom.Hr: true, atom.Center: true, atom.Caption: true,
	atom.Body: true, atom.Html: true, atom.Legend: true,
}

var headingLevel = map[atom.Atom]int{
	atom.H1: 1, atom.H2: 2, atom.H3: 3, atom.H4: 4, atom.H5: 5, atom.H6: 6,
}

// htmlWalker accumulates inline text into the running block and emits it
// when a block-level element starts or ends.
type htmlWalker struct {
	blocks []document.Block
	title  string
	// metaTitle is the title of a metadata comment (metaCommentTitle),
	// for a page without <title>.
	metaTitle string
	buf       strings.Builder
	kind      document.BlockKind // kind of the running block
	marker    string             // list marker of the running list item
}

func (w *htmlWalker) flush() {
	text := w.buf.String()
	w.buf.Reset()
	if strings.TrimSpace(text) == "" {
		return
	}
	if w.kind == document.BlockListItem {
		text = w.marker + strings.TrimSpace(text)
	}
	w.blocks = append(w.blocks, document.Block{Kind: w.kind, Text: text})
}

// text appends s with its whitespace collapsed, so the separation between
// inline elements is kept but layout whitespace is not.
func (w *htmlWalker) text(s string) {
	if startsWithSpace(s) {
		w.space()
	}
	for i, f := range strings.Fields(s) {
		if i > 0 {
			w.space()
		}
		w.buf.WriteString(f)
	}
	if endsWithSpace(s) {
		w.space()
	}
}

func (w *htmlWalker) space() {
	if s := w.buf.String(); s != "" && !strings.HasSuffix(s, " ") && !strings.HasSuffix(s, "\n") {
		w.buf.WriteByte(' ')
	}
}

func startsWithSpace(s string) bool { return s != "" && strings.TrimLeft(s, " \t\r\n\f") != s }
func endsWithSpace(s string) bool   { return s != "" && strings.TrimRight(s, " \t\r\n\f") != s }

func (w *htmlWalker) walk(n *html.Node) {
	switch n.Type {
	case html.TextNode:
		w.text(n.Data)
		return
	case html.DocumentNode:
		w.children(n)
		return
	case html.CommentNode:
		if w.metaTitle == "" {
			w.metaTitle = metaCommentTitle(n.Data)
		}
		return
	case html.ElementNode:
	default:
		return
	}
	a := n.DataAtom
	switch {
	case a == atom.Title:
		if w.title == "" {
			w.title = strings.Join(strings.Fields(textContent(n)), " ")
		}
	case a == atom.Head:
		// only <title> matters in <head>
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if c.DataAtom == atom.Title {
				w.walk(c)
			}
		}
	case htmlSkip[a]:
	case headingLevel[a] > 0:
		w.flush()
		w.blocks = append(w.blocks, document.Block{Kind: document.BlockHeading, Level: headingLevel[a], Text: strings.Join(strings.Fields(textContent(n)), " ")})
	case a == atom.Pre:
		w.flush()
		w.blocks = append(w.blocks, document.Block{Kind: document.BlockCode, Text: strings.TrimPrefix(textContent(n), "\n")})
	case a == atom.Table:
		w.flush()
		w.table(n)
	case a == atom.Ul || a == atom.Ol:
		w.list(n)
	case a == atom.Li:
		// a stray <li> outside a list
		w.item(n, "- ")
	case a == atom.Br:
		w.buf.WriteByte('\n')
	case a == atom.Img:
	case htmlBreak[a]:
		if w.kind == document.BlockListItem && a != atom.Dl && a != atom.Blockquote {
			// paragraphs inside a list item stay part of the item
			w.space()
			w.children(n)
			return
		}
		w.flush()
		w.children(n)
		w.flush()
	default: // inline elements
		w.children(n)
	}
}

func (w *htmlWalker) children(n *html.Node) {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		w.walk(c)
	}
}

func (w *htmlWalker) list(n *html.Node) {
	w.flush()
	ordered := n.DataAtom == atom.Ol
	num := 1
	if s, ok := attr(n, "start"); ok && ordered {
		if v, err := strconv.Atoi(s); err == nil {
			num = v
		}
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type != html.ElementNode || c.DataAtom != atom.Li {
			continue
		}
		marker := "- "
		if ordered {
			marker = strconv.Itoa(num) + ". "
			num++
		}
		w.item(c, marker)
	}
}

func (w *htmlWalker) item(n *html.Node, marker string) {
	w.flush()
	kind, mark := w.kind, w.marker
	w.kind, w.marker = document.BlockListItem, marker
	w.children(n)
	w.flush()
	w.kind, w.marker = kind, mark
}

// table emits one document.BlockTable per row of this table; nested tables become
// part of their cell's text.
func (w *htmlWalker) table(t *html.Node) {
	var rows func(n *html.Node)
	rows = func(n *html.Node) {
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if c.Type != html.ElementNode {
				continue
			}
			switch c.DataAtom {
			case atom.Tr:
				var cells []string
				for td := c.FirstChild; td != nil; td = td.NextSibling {
					if td.Type == html.ElementNode && (td.DataAtom == atom.Td || td.DataAtom == atom.Th) {
						cells = append(cells, strings.Join(strings.Fields(textContent(td)), " "))
					}
				}
				if row := joinCells(cells); strings.Trim(row, " |") != "" {
					w.blocks = append(w.blocks, document.Block{Kind: document.BlockTable, Text: row})
				}
			case atom.Caption:
				if s := strings.Join(strings.Fields(textContent(c)), " "); s != "" {
					w.blocks = append(w.blocks, document.Block{Kind: document.BlockParagraph, Text: s})
				}
			case atom.Thead, atom.Tbody, atom.Tfoot:
				rows(c)
			}
		}
	}
	rows(t)
}

// textContent returns the text under n, skipping non-text elements.
func textContent(n *html.Node) string {
	var b strings.Builder
	var rec func(*html.Node)
	rec = func(n *html.Node) {
		switch {
		case n.Type == html.TextNode:
			b.WriteString(n.Data)
		case n.Type == html.ElementNode && htmlSkip[n.DataAtom]:
		case n.Type == html.ElementNode && n.DataAtom == atom.Br:
			b.WriteByte('\n')
		default:
			for c := n.FirstChild; c != nil; c = c.NextSibling {
				rec(c)
			}
			if n.Type == html.ElementNode && (htmlBreak[n.DataAtom] || n.DataAtom == atom.Li || n.DataAtom == atom.Td || n.DataAtom == atom.Th) {
				b.WriteByte(' ')
			}
		}
	}
	rec(n)
	return b.String()
}

func attr(n *html.Node, key string) (string, bool) {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val, true
		}
	}
	return "", false
}

// metaCommentTitle is the "Title" of a page's metadata comment, as the Go
// project's documentation pages (and sites built like them) carry theirs
// instead of a <title>: <!--{ "Title": "The Go Memory Model", … }-->. It
// is "" for any other comment. A <title> the page has wins.
func metaCommentTitle(data string) string {
	data = strings.TrimSpace(data)
	if !strings.HasPrefix(data, "{") || !strings.HasSuffix(data, "}") || len(data) > 64<<10 {
		return ""
	}
	var meta struct {
		Title string `json:"Title"`
	}
	if json.Unmarshal([]byte(data), &meta) != nil {
		return ""
	}
	return strings.Join(strings.Fields(meta.Title), " ")
}
