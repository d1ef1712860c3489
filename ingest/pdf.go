package ingest

import (
	"bytes"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/ledongthuc/pdf"

	"ragd"
)

// parsePDF extracts each page's text as paragraphs tagged with the page
// number. The PDF library panics on some malformed files; the panic is
// turned into a *ParseError so one bad file cannot take the worker down.
func parsePDF(data []byte, name string) (l *Loaded, err error) {
	defer func() {
		if r := recover(); r != nil {
			l, err = nil, parseErr(name, ragd.SourcePDF, "malformed PDF: %s", panicText(r))
		}
	}()
	r, err := pdf.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return nil, &ParseError{Source: name, Type: ragd.SourcePDF, Err: err}
	}
	l = &Loaded{Title: pdfTitle(r)}
	pages := r.NumPage()
	for i := 1; i <= pages; i++ {
		p := r.Page(i)
		if p.V.IsNull() {
			continue
		}
		l.Blocks = append(l.Blocks, pageParagraphs(pageLines(p.Content().Text), i)...)
	}
	if strings.TrimSpace(l.NormalizedText()) == "" {
		return nil, parseErr(name, ragd.SourcePDF, "no extractable text (a scanned PDF needs OCR first)")
	}
	return l, nil
}

// pdfTitle reads /Title from the document information dictionary.
func pdfTitle(r *pdf.Reader) string {
	return strings.TrimSpace(r.Trailer().Key("Info").Key("Title").Text())
}

// pdfLine is one line of text on a page and its baseline.
type pdfLine struct {
	text string
	y    float64
}

// pageLines groups a page's glyphs, in content-stream order (the order the
// producer wrote them, which survives flipped coordinate systems better
// than sorting by position), into lines: a glyph whose baseline moves by
// more than half its size starts a new line. A space is written for space
// glyphs and for a horizontal gap of more than a quarter em, which is how
// TeX and others separate words without a space character (only when the
// font reports glyph widths, else the gap is unknown).
func pageLines(glyphs []pdf.Text) []pdfLine {
	var (
		lines        []pdfLine
		b            strings.Builder
		started      bool
		space        bool
		y, end, prev float64
	)
	flush := func() {
		if started {
			lines = append(lines, pdfLine{b.String(), y})
		}
		b.Reset()
		space = false
	}
	for _, g := range glyphs {
		if g.S == "\n" || g.S == "\r" || g.S == "" {
			continue // the library marks the end of a TJ array so; not layout
		}
		size := math.Abs(g.FontSize)
		if size == 0 {
			size = 10
		}
		if started && math.Abs(g.Y-y) > size/2 {
			flush()
		}
		if strings.TrimSpace(g.S) == "" {
			space = b.Len() > 0
		} else {
			if b.Len() > 0 && (space || (prev > 0 && g.X-end > size/4)) {
				b.WriteByte(' ')
			}
			b.WriteString(g.S)
			space = false
		}
		started, y, end, prev = true, g.Y, g.X+g.W, g.W
	}
	flush()
	return lines
}

// pageParagraphs rebuilds paragraphs from a page's lines: a blank line or a
// vertical gap clearly wider than the usual line spacing ends a paragraph,
// and wrapped lines are joined with a space (none after a hyphen, which
// keeps compound words whole).
func pageParagraphs(lines []pdfLine, page int) []Block {
	var gaps []float64
	for i := 1; i < len(lines); i++ {
		if lines[i].text != "" && lines[i-1].text != "" {
			gaps = append(gaps, math.Abs(lines[i-1].y-lines[i].y))
		}
	}
	gap := medianPositive(gaps)

	var (
		blocks []Block
		cur    strings.Builder
	)
	flush := func() {
		if cur.Len() > 0 {
			blocks = append(blocks, Block{Kind: BlockParagraph, Text: cur.String(), Page: page})
			cur.Reset()
		}
	}
	for i, ln := range lines {
		text := strings.Join(strings.Fields(ln.text), " ")
		if text == "" {
			flush()
			continue
		}
		if i > 0 && gap > 0 && math.Abs(lines[i-1].y-ln.y) > gap*1.5 {
			flush()
		}
		if cur.Len() > 0 && !strings.HasSuffix(cur.String(), "-") {
			cur.WriteByte(' ')
		}
		cur.WriteString(text)
	}
	flush()
	return blocks
}

// medianPositive returns the median of the positive values, 0 if none.
func medianPositive(v []float64) float64 {
	v = slices.DeleteFunc(v, func(g float64) bool { return g <= 0 })
	if len(v) == 0 {
		return 0
	}
	slices.Sort(v)
	return v[len(v)/2]
}

// panicText renders a recovered panic for an error message: the library
// quotes raw file bytes, which must not make the message invalid UTF-8.
func panicText(r any) string {
	s := strings.ToValidUTF8(fmt.Sprint(r), "?")
	if len(s) > 200 {
		s = strings.ToValidUTF8(s[:200], "") + "…"
	}
	return s
}
