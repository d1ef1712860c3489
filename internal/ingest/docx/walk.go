package docx

import (
	"encoding/xml"
	"errors"
	"io"
	"strconv"
)

// Frame kinds: what an open element of the main part is to the reader.
const (
	frameOther uint8 = iota
	framePara
	frameCell
	frameRow
	frameRun
	frameText
	frameDrawing
	frameShape
)

// docxFrame is one open element of the main part.
type docxFrame struct {
	kind uint8
	alt  string // frameDrawing, frameShape: the picture's alt text
}

// docxWalk is the one pass over the main part. Paragraphs nest (text boxes
// sit inside paragraphs) and so do tables, hence the box stack: a closed
// paragraph's text goes to the enclosing table cell if there is one, else
// it becomes a block.
type docxWalk struct {
	tokens *docxTokens
	styles map[string]docxStyle
	m      *docxModel
	strict bool        // a table cell outside any row fails the walk (the text would be wrong)
	frames []docxFrame // one per open element
	boxes  []*docxBox  // open paragraphs and table cells, innermost last
	free   []*docxBox  // closed boxes, for reuse
	rows   []*docxRow  // open table rows, innermost last
	inText bool        // inside a run's w:t
	skip   int         // depth inside an element whose content is not the document's text
}

// run reads the part to its end.
func (w *docxWalk) run() error {
	for {
		tok, err := w.tokens.next()
		if isEOF(err) {
			break
		}
		if err != nil {
			return err
		}
		if err := w.token(tok); err != nil {
			return err
		}
	}
	if len(w.frames) > 0 || w.skip > 0 {
		return io.ErrUnexpectedEOF
	}
	return nil
}

// token takes in one token, unless it lies in a skipped element.
func (w *docxWalk) token(tok xml.Token) error {
	switch t := tok.(type) {
	case xml.StartElement:
		if w.skip > 0 || docxSkipped(t.Name) {
			w.skip++
			return nil
		}
		return w.start(t)
	case xml.EndElement:
		if w.skip > 0 {
			w.skip--
			return nil
		}
		return w.end()
	case xml.CharData:
		if w.skip == 0 && w.inText {
			if p := w.para(); p != nil {
				return w.write(p, t)
			}
		}
	}
	return nil
}

// docxSkipped reports elements whose content is not the document's text:
// mc:Fallback repeats mc:Choice for older readers; deleted and moved-away
// revisions are gone.
func docxSkipped(n xml.Name) bool {
	return (n.Local == "Fallback" && n.Space == markupCompatNS) || (isWordML(n) && (n.Local == "del" || n.Local == "moveFrom"))
}

// start opens a frame for every element, so that end can tell what closes.
func (w *docxWalk) start(t xml.StartElement) error {
	var (
		f   docxFrame
		err error
	)
	switch {
	case isWordML(t.Name):
		f, err = w.startWord(t)
	case w.m.pics != nil:
		f, err = w.startPicture(t)
	}
	w.frames = append(w.frames, f)
	return err
}

// startWord handles a WordprocessingML element.
func (w *docxWalk) startWord(t xml.StartElement) (docxFrame, error) {
	switch t.Name.Local {
	case "p":
		w.openPara()
		return docxFrame{kind: framePara}, nil
	case "pStyle":
		if p := w.para(); p != nil {
			p.style = w.styles[attrVal(t)]
		}
	case "outlineLvl":
		if p := w.para(); p != nil {
			if n, err := strconv.Atoi(attrVal(t)); err == nil {
				p.outline = n
			}
		}
	case "numPr":
		if p := w.para(); p != nil {
			p.list = true
		}
	case "t":
		w.inText = w.inRun()
		return docxFrame{kind: frameText}, nil
	case "tab", "br", "cr", "noBreakHyphen":
		if p := w.para(); p != nil && w.inRun() {
			return docxFrame{}, w.write(p, docxSpecialChars[t.Name.Local])
		}
	case "tr":
		w.rows = append(w.rows, &docxRow{})
		return docxFrame{kind: frameRow}, nil
	case "tc":
		c := w.newBox()
		c.cell = true
		w.boxes = append(w.boxes, c)
		return docxFrame{kind: frameCell}, nil
	case "r":
		return docxFrame{kind: frameRun}, nil
	case "drawing":
		return docxFrame{kind: frameDrawing}, nil
	}
	return docxFrame{}, nil
}

// docxSpecialChars is the text of the run elements that stand for a
// character.
var docxSpecialChars = map[string][]byte{"tab": []byte("\t"), "br": []byte("\n"), "cr": []byte("\n"), "noBreakHyphen": []byte("-")}

// end closes the innermost frame: a paragraph, cell or row is done.
func (w *docxWalk) end() error {
	if len(w.frames) == 0 {
		return errors.New("element closed out of order")
	}
	f := w.frames[len(w.frames)-1]
	w.frames = w.frames[:len(w.frames)-1]
	switch f.kind {
	case frameText:
		w.inText = false
	case framePara:
		return w.closePara()
	case frameCell:
		return w.closeCell()
	case frameRow:
		return w.closeRow()
	}
	return nil
}

// inRun reports the innermost open element being a run.
func (w *docxWalk) inRun() bool {
	return len(w.frames) > 0 && w.frames[len(w.frames)-1].kind == frameRun
}

// innermost returns the innermost open frame of a kind, nil if none.
func (w *docxWalk) innermost(kind uint8) *docxFrame {
	for i := len(w.frames) - 1; i >= 0; i-- {
		if w.frames[i].kind == kind {
			return &w.frames[i]
		}
	}
	return nil
}

// write adds text to a paragraph, within the text budget.
func (w *docxWalk) write(p *docxBox, b []byte) error {
	if err := w.tokens.keep(len(b)); err != nil {
		return err
	}
	p.text.Write(b)
	return nil
}
