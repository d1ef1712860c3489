package docx

import (
	"encoding/xml"
	"strings"
)

// startPicture handles, when pictures are read, the DrawingML and VML
// elements that place a picture or carry its alt text. Alt text kept in a
// frame counts as text, since it is held on to.
func (w *docxWalk) startPicture(t xml.StartElement) (docxFrame, error) {
	local, space := t.Name.Local, t.Name.Space
	switch {
	case local == "docPr" && (space == nsWordDrawing || space == nsWordDrawingS):
		if dr := w.innermost(frameDrawing); dr != nil {
			dr.alt = attrNamed(t, "descr")
			if strings.TrimSpace(dr.alt) == "" {
				dr.alt = attrNamed(t, "title")
			}
			return docxFrame{}, w.tokens.keep(len(dr.alt))
		}
	case local == "blip" && (space == nsDrawingML || space == nsDrawingMLStrict):
		alt := ""
		if dr := w.innermost(frameDrawing); dr != nil {
			alt = dr.alt
		}
		return docxFrame{}, w.place(relAttr(t, "embed"), alt)
	case space == nsVML && local == "imagedata":
		alt := attrNamed(t, "title") // o:title
		if sh := w.innermost(frameShape); sh != nil && strings.TrimSpace(sh.alt) != "" {
			alt = sh.alt
		}
		return docxFrame{}, w.place(relAttr(t, "id"), alt)
	case space == nsVML && (local == "shape" || local == "rect" || local == "roundrect" || local == "oval"):
		alt := attrNamed(t, "alt")
		return docxFrame{kind: frameShape, alt: alt}, w.tokens.keep(len(alt))
	}
	return docxFrame{}, nil
}

// place offers a picture reference to the pictures; the innermost open
// paragraph is where it sits. An accepted picture's alt text counts as
// text (it is kept).
func (w *docxWalk) place(rel, alt string) error {
	if rel == "" {
		return nil
	}
	ref := docxPic{par: -1, rel: rel, alt: alt}
	p := w.para()
	if p != nil {
		ref.par = p.par
	}
	if !w.m.pics.place(ref) {
		return nil
	}
	if p != nil {
		p.placed = true
	}
	return w.tokens.keep(len(alt))
}
