package docx

import (
	"errors"
	"strings"

	"ragd/internal/ingest/document"
)

// docxBox is an open paragraph or table cell: where text is gathered.
type docxBox struct {
	text    strings.Builder
	cell    bool
	style   docxStyle // a paragraph's style
	outline int       // a paragraph's own outline level, -1 if none
	list    bool      // a numbered paragraph
	par     int       // a paragraph's index among the pictures' paragraphs, -1 if they are not read
	placed  bool      // a paragraph holding an accepted picture
}

// docxRow is an open table row, its cells joined as joinCells joins them
// but one by one, so that empty trailing cells cost nothing.
type docxRow struct {
	text    strings.Builder
	cells   int // cells written
	pending int // empty cells not written yet
}

// add appends the next cell's text.
func (r *docxRow) add(cell string) {
	if cell == "" {
		r.pending++
		return
	}
	for range r.pending + 1 {
		if r.cells > 0 {
			r.text.WriteString(" | ")
		}
		r.cells++
	}
	r.pending = 0
	r.text.WriteString(cell)
}

// openPara starts a paragraph, filed among the pictures' paragraphs when
// they are read.
func (w *docxWalk) openPara() {
	b := w.newBox()
	b.outline, b.par = -1, -1
	if w.m.pics != nil {
		b.par = w.m.pics.openPar()
	}
	w.boxes = append(w.boxes, b)
}

// newBox returns an empty box, a closed one when there is one: most
// paragraphs are short, and a document has millions.
func (w *docxWalk) newBox() *docxBox {
	if n := len(w.free); n > 0 {
		b := w.free[n-1]
		w.free = w.free[:n-1]
		return b
	}
	return &docxBox{}
}

// freeBox empties a closed box for reuse; its text has been taken.
func (w *docxWalk) freeBox(b *docxBox) {
	*b = docxBox{}
	w.free = append(w.free, b)
}

// para returns the innermost open paragraph, nil if none.
func (w *docxWalk) para() *docxBox {
	for i := len(w.boxes) - 1; i >= 0; i-- {
		if !w.boxes[i].cell {
			return w.boxes[i]
		}
	}
	return nil
}

// cell returns the innermost open box if it is a table cell, nil otherwise.
func (w *docxWalk) cell() *docxBox {
	if n := len(w.boxes); n > 0 && w.boxes[n-1].cell {
		return w.boxes[n-1]
	}
	return nil
}

// popBox removes the innermost box.
func (w *docxWalk) popBox() *docxBox {
	b := w.boxes[len(w.boxes)-1]
	w.boxes = w.boxes[:len(w.boxes)-1]
	return b
}

// closePara ends the innermost box, a paragraph (the XML is well formed):
// its text goes to the enclosing cell, or becomes a block.
func (w *docxWalk) closePara() error {
	p := w.popBox()
	defer w.freeBox(p)
	text := docxShrink(strings.TrimSpace(p.text.String()), p.text.Cap())
	if w.m.pics != nil && w.m.pics.closePar(p.par, text, p.style, len(w.m.blocks), p.placed) {
		if err := w.tokens.keep(docxParCost); err != nil {
			return err
		}
	}
	switch {
	case text == "" || p.style.skip:
	case w.cell() != nil:
		appendText(&w.cell().text, text)
	default:
		return w.addBlock(docxBlock(p, text))
	}
	return nil
}

// addBlock appends a block, within the budget of the main part.
func (w *docxWalk) addBlock(b document.Block) error {
	if err := w.tokens.keep(docxBlockCost); err != nil {
		return err
	}
	w.m.blocks = append(w.m.blocks, b)
	return nil
}

// closeCell ends the innermost box, a table cell: its text joins the row.
func (w *docxWalk) closeCell() error {
	c := w.popBox()
	defer w.freeBox(c)
	if len(w.rows) == 0 {
		if w.strict {
			return errors.New("table cell closed out of order")
		}
		return nil
	}
	w.rows[len(w.rows)-1].add(collapseSpace(c.text.String()))
	return nil
}

// closeRow ends the innermost row: a block, or for a nested table more
// text of the enclosing cell (a copy, hence counted).
func (w *docxWalk) closeRow() error {
	r := w.rows[len(w.rows)-1]
	w.rows = w.rows[:len(w.rows)-1]
	row := docxShrink(r.text.String(), r.text.Cap())
	switch {
	case strings.Trim(row, " |") == "":
	case w.cell() != nil:
		if err := w.tokens.keep(len(row)); err != nil {
			return err
		}
		appendText(&w.cell().text, row)
	default:
		return w.addBlock(document.Block{Kind: document.BlockTable, Text: row})
	}
	return nil
}

// docxShrink returns s, or a copy of it when the buffer it lies in is much
// larger (a builder grows by doubling): a kept text should hold on to about
// its own bytes, which are what the budget counts.
func docxShrink(s string, buffer int) string {
	if buffer-len(s) > len(s)/4+64 {
		return strings.Clone(s)
	}
	return s
}

// appendText adds s to b, space-separated.
func appendText(b *strings.Builder, s string) {
	if b.Len() > 0 {
		b.WriteByte(' ')
	}
	b.WriteString(s)
}

// docxBlock makes a closed paragraph's block: a heading by its own outline
// level or its style's, a list item when numbered, else a paragraph.
func docxBlock(p *docxBox, text string) document.Block {
	level := p.style.level
	if p.outline >= 0 && p.outline < 9 {
		level = p.outline + 1
	}
	switch {
	case level > 0:
		return document.Block{Kind: document.BlockHeading, Level: min(level, 6), Text: text}
	case p.list || p.style.list:
		return document.Block{Kind: document.BlockListItem, Text: "- " + text}
	}
	return document.Block{Kind: document.BlockParagraph, Text: text}
}
