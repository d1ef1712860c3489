package pdftext

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/ledongthuc/pdf"

	"ragd"
	"ragd/internal/ingest/document"
)

// parsePDF extracts each page's text as paragraphs tagged with the page
// number; a document of more than maxPages pages is refused. Pages without
// a text layer go to ocr (nil: they give no text). It runs inside the
// parser sandbox (see sandbox.go): the PDF library can loop or balloon on
// hostile files, which only a separate process bounds. Its panics are
// turned into a *document.ParseError as well.
func parsePDF(data []byte, name string, maxPages int, o OCR, ocr ocrReader) (l *document.Loaded, err error) {
	defer func() {
		if r := recover(); r != nil {
			l, err = nil, document.Errorf(name, ragd.SourcePDF, "malformed PDF: %s", document.PanicText(r))
		}
	}()
	r, err := pdf.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return nil, &document.ParseError{Source: name, Type: ragd.SourcePDF, Err: err}
	}
	pages, err := pdfPages(r, maxPages)
	if err != nil {
		return nil, &document.ParseError{Source: name, Type: ragd.SourcePDF, Err: err}
	}
	l = &document.Loaded{Title: pdfTitle(r)}
	perPage := make([][]document.Block, len(pages))
	var scanned []scannedPage
	for i, p := range pages {
		perPage[i] = pageParagraphs(pageLines(p.Content().Text), i+1)
		if !hasText(perPage[i]) {
			w, h := pageSize(p)
			scanned = append(scanned, scannedPage{nr: i + 1, w: w, h: h})
		}
	}
	if len(scanned) > 0 && ocr != nil {
		read, err := ocr(scanned)
		if err != nil {
			return nil, &document.ParseError{Source: name, Type: ragd.SourcePDF, Err: err}
		}
		for nr, blocks := range read {
			perPage[nr-1] = blocks
		}
		l.OCRPages = len(scanned)
	}
	for _, blocks := range perPage {
		l.Blocks = append(l.Blocks, blocks...)
	}
	if strings.TrimSpace(l.NormalizedText()) == "" {
		if l.OCRPages > 0 {
			return nil, document.Errorf(name, ragd.SourcePDF, "no extractable text, also not by OCR of its %d scanned pages", l.OCRPages)
		}
		return nil, document.Errorf(name, ragd.SourcePDF, "%s", noTextReason(o))
	}
	return l, nil
}

// ocrReader reads scanned pages and returns each one's blocks.
type ocrReader func([]scannedPage) (map[int][]document.Block, error)

// Bounds of the page-tree walk. Real page trees are a few levels deep.
const (
	maxPageTreeDepth = 64
	// pageTreeSlack is how many intermediate nodes beyond the page limit
	// the walk visits before it gives up on a tree of shared subtrees.
	pageTreeSlack = 4096
)

// pdfPages lists the pages in order by walking the page tree itself; the
// library's Page(i) trusts each node's /Count and /Kids, so a /Pages node
// that lists itself among its kids loops for ever and a huge declared
// /Count costs time in proportion. The walk is bounded in depth (a cycle is
// refused), in nodes visited (a tree of shared subtrees cannot fan out
// exponentially) and in pages (maxPages, also checked against the declared
// /Count before anything is read).
func pdfPages(r *pdf.Reader, maxPages int) ([]pdf.Page, error) {
	root := r.Trailer().Key("Root").Key("Pages")
	if declared := root.Key("Count").Int64(); maxPages > 0 && declared > int64(maxPages) {
		return nil, fmt.Errorf("the document declares %d pages, more than ingest.max_pages (%d)", declared, maxPages)
	}
	w := pageWalk{max: maxPages, budget: maxPages + pageTreeSlack}
	if maxPages <= 0 {
		w.budget = math.MaxInt
	}
	if err := w.visit(root, 0); err != nil {
		return nil, err
	}
	return w.pages, nil
}

type pageWalk struct {
	pages  []pdf.Page
	max    int // pages, 0 for no limit
	budget int // nodes left to visit
}

func (w *pageWalk) visit(node pdf.Value, depth int) error {
	if w.budget--; w.budget < 0 {
		return errors.New("the page tree has too many nodes (shared or repeated subtrees)")
	}
	switch node.Key("Type").Name() {
	case "Page":
		if w.max > 0 && len(w.pages) >= w.max {
			return fmt.Errorf("the document has more than ingest.max_pages (%d) pages", w.max)
		}
		w.pages = append(w.pages, pdf.Page{V: node})
		return nil
	case "Pages":
		if depth >= maxPageTreeDepth {
			return fmt.Errorf("the page tree is deeper than %d levels (a /Kids cycle)", maxPageTreeDepth)
		}
		kids := node.Key("Kids")
		for i := 0; i < kids.Len(); i++ {
			if err := w.visit(kids.Index(i), depth+1); err != nil {
				return err
			}
		}
	}
	return nil // neither: not a page, as the library's own walk treats it
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
func pageParagraphs(lines []pdfLine, page int) []document.Block {
	var gaps []float64
	for i := 1; i < len(lines); i++ {
		if lines[i].text != "" && lines[i-1].text != "" {
			gaps = append(gaps, math.Abs(lines[i-1].y-lines[i].y))
		}
	}
	gap := medianPositive(gaps)

	var (
		blocks []document.Block
		cur    strings.Builder
	)
	flush := func() {
		if cur.Len() > 0 {
			blocks = append(blocks, document.Block{Kind: document.BlockParagraph, Text: cur.String(), Page: page})
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
