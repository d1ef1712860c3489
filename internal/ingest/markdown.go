package ingest

import (
	"strconv"
	"strings"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	east "github.com/yuin/goldmark/extension/ast"

	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"

	"ragd/internal/ingest/document"
)

// markdown parses CommonMark plus GFM tables; heading attributes ("{#id}")
// are parsed so they do not end up in heading text.
var markdown = goldmark.New(
	goldmark.WithExtensions(extension.Table),
	goldmark.WithParserOptions(parser.WithHeadingAttribute()),
)

// parseMarkdown walks the goldmark AST into blocks. The title comes from
// YAML front matter, else the first level-1 heading (see Parse).
func parseMarkdown(data []byte, name string) (*document.Loaded, error) {
	src := []byte(document.NormalizeNewlines(string(data)))
	title, body := splitFrontMatter(src)
	m := &mdWalker{src: body}
	m.block(markdown.Parser().Parse(text.NewReader(body)))
	return &document.Loaded{Title: title, Blocks: m.blocks}, nil
}

type mdWalker struct {
	src    []byte
	blocks []document.Block
	// noImages leaves pictures out of inline text (headingText).
	noImages bool
}

func (m *mdWalker) add(kind document.BlockKind, level int, s string) {
	m.blocks = append(m.blocks, document.Block{Kind: kind, Level: level, Text: s})
}

func (m *mdWalker) block(n ast.Node) {
	switch n := n.(type) {
	case *ast.Heading:
		m.add(document.BlockHeading, n.Level, m.headingText(n))
	case *ast.Paragraph, *ast.TextBlock:
		m.add(document.BlockParagraph, 0, m.inline(n))
	case *ast.FencedCodeBlock, *ast.CodeBlock:
		m.add(document.BlockCode, 0, m.lines(n))
	case *ast.List:
		i := n.Start
		for item := n.FirstChild(); item != nil; item = item.NextSibling() {
			marker := "- "
			if n.IsOrdered() {
				marker = strconv.Itoa(i) + ". "
				i++
			}
			m.listItem(item, marker)
		}
	case *ast.HTMLBlock:
		// Raw HTML in Markdown (tables, <details>) still carries text.
		s := m.lines(n)
		if n.HasClosure() {
			s += string(n.ClosureLine.Value(m.src))
		}
		m.blocks = append(m.blocks, htmlFragmentBlocks(s)...)
	case *east.Table:
		for row := n.FirstChild(); row != nil; row = row.NextSibling() {
			var cells []string
			for c := row.FirstChild(); c != nil; c = c.NextSibling() {
				cells = append(cells, strings.TrimSpace(m.inline(c)))
			}
			m.add(document.BlockTable, 0, joinCells(cells))
		}
	case *ast.ThematicBreak:
	default: // document, block quotes and other containers
		for c := n.FirstChild(); c != nil; c = c.NextSibling() {
			m.block(c)
		}
	}
}

// listItem emits the item's own text as one list item, prefixed with its
// marker, and its nested lists and code blocks as blocks of their own.
func (m *mdWalker) listItem(item ast.Node, marker string) {
	var text []string
	flush := func() {
		if len(text) > 0 {
			m.add(document.BlockListItem, 0, marker+strings.Join(text, " "))
			text = text[:0]
		}
	}
	for c := item.FirstChild(); c != nil; c = c.NextSibling() {
		switch c.(type) {
		case *ast.Paragraph, *ast.TextBlock:
			text = append(text, m.inline(c))
		default:
			flush()
			m.block(c)
		}
	}
	flush()
}

// inline renders the text of inline children: soft breaks become spaces,
// hard breaks newlines, link targets and inline HTML tags are dropped.
// Backslash escapes and character references are resolved as a Markdown
// renderer would ("SA\_ONSTACK" is SA_ONSTACK to a reader and to search),
// except in code spans, whose text is literal.
func (m *mdWalker) inline(n ast.Node) string {
	var b strings.Builder
	m.inlineTo(n, &b)
	return b.String()
}

// headingText is a heading's inline text without its pictures: in a
// heading they are badges and logos ("[![GoDoc](…)](…)"), whose alt text
// would read as part of the title and of every chunk's heading path.
func (m *mdWalker) headingText(n ast.Node) string {
	var b strings.Builder
	m.noImages = true
	m.inlineTo(n, &b)
	m.noImages = false
	return strings.Join(strings.Fields(b.String()), " ")
}

func (m *mdWalker) inlineTo(n ast.Node, b *strings.Builder) {
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		if _, img := c.(*ast.Image); img && m.noImages {
			continue
		}
		switch c := c.(type) {
		case *ast.Text:
			b.Write(unescape(c.Value(m.src)))
			if c.HardLineBreak() {
				b.WriteByte('\n')
			} else if c.SoftLineBreak() {
				b.WriteByte(' ')
			}
		case *ast.String:
			b.Write(c.Value)
		case *ast.AutoLink:
			b.Write(c.Label(m.src))
		case *ast.RawHTML:
		case *ast.CodeSpan:
			for t := c.FirstChild(); t != nil; t = t.NextSibling() {
				if t, ok := t.(*ast.Text); ok {
					b.Write(t.Value(m.src))
				}
			}
		default:
			m.inlineTo(c, b)
		}
	}
}

// unescape resolves backslash escapes and entity and numeric character
// references in Markdown text.
func unescape(s []byte) []byte {
	return util.ResolveEntityNames(util.ResolveNumericReferences(util.UnescapePunctuations(s)))
}

func (m *mdWalker) lines(n ast.Node) string {
	var b strings.Builder
	lines := n.Lines()
	for i := 0; i < lines.Len(); i++ {
		seg := lines.At(i)
		b.Write(seg.Value(m.src))
	}
	return b.String()
}

// splitFrontMatter removes a leading YAML front matter block ("---" …
// "---") and returns its title field, which names the document better than
// any heading.
func splitFrontMatter(src []byte) (title string, body []byte) {
	s := string(src)
	if !strings.HasPrefix(s, "---\n") {
		return "", src
	}
	rest := s[len("---\n"):]
	end := -1
	for _, closer := range []string{"\n---\n", "\n...\n"} {
		if i := strings.Index("\n"+rest, closer); i >= 0 && (end < 0 || i < end) {
			end = i
		}
	}
	if end < 0 {
		return "", src
	}
	for line := range strings.SplitSeq(rest[:max(end-1, 0)], "\n") {
		if v, ok := strings.CutPrefix(line, "title:"); ok {
			title = strings.Trim(strings.TrimSpace(v), `"'`)
			break
		}
	}
	return title, []byte(rest[min(end+4, len(rest)):])
}

// joinCells renders one table row.
func joinCells(cells []string) string {
	for len(cells) > 0 && cells[len(cells)-1] == "" {
		cells = cells[:len(cells)-1]
	}
	return strings.Join(cells, " | ")
}
