package docx

import (
	"encoding/xml"
	"errors"
	"io"
	"strings"
	"unicode"
)

// Namespaces the DOCX reader looks at (transitional and strict).
const (
	markupCompatNS    = "http://schemas.openxmlformats.org/markup-compatibility/2006"
	nsWordML          = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
	nsWordMLStrict    = "http://purl.oclc.org/ooxml/wordprocessingml/main"
	nsDrawingML       = "http://schemas.openxmlformats.org/drawingml/2006/main"
	nsDrawingMLStrict = "http://purl.oclc.org/ooxml/drawingml/main"
	nsWordDrawing     = "http://schemas.openxmlformats.org/drawingml/2006/wordprocessingDrawing"
	nsWordDrawingS    = "http://purl.oclc.org/ooxml/drawingml/wordprocessingDrawing"
	nsRelationships   = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
	nsRelationshipsS  = "http://purl.oclc.org/ooxml/officeDocument/relationships"
	nsVML             = "urn:schemas-microsoft-com:vml"
)

// docxTokens reads the tokens of one part within the limits on nesting,
// element count and attributes per element, and counts the bytes its reader
// keeps (keep); the token size is bounded by the part itself.
type docxTokens struct {
	part        *docxPart
	d           *xml.Decoder
	depth       int
	elements    int
	maxElements int
	kept        int
	maxKept     int
	keptWhat    string // what keep counts, for the message ("text and blocks")
}

// newDOCXTokens reads p's tokens with a limit on elements and one on kept
// bytes (keptWhat says what keep counts, for the message).
func newDOCXTokens(p *docxPart, maxElements, maxKept int, keptWhat string) *docxTokens {
	return &docxTokens{part: p, d: xml.NewDecoder(p), maxElements: maxElements, maxKept: maxKept, keptWhat: keptWhat}
}

// next returns the next token (io.EOF at the end of the part). Its data is
// valid until the following call.
func (t *docxTokens) next() (xml.Token, error) {
	t.part.tokenDone()
	tok, err := t.d.Token()
	if err != nil {
		return nil, err
	}
	switch e := tok.(type) {
	case xml.StartElement:
		t.depth++
		t.elements++
		switch {
		case t.depth > maxDOCXDepth:
			return nil, docxLimit("%s nests elements deeper than %d", t.part.name, maxDOCXDepth)
		case t.elements > t.maxElements:
			return nil, docxLimit("%s has more than %d elements", t.part.name, t.maxElements)
		case len(e.Attr) > maxDOCXAttrs:
			return nil, docxLimit("%s has an element with more than %d attributes", t.part.name, maxDOCXAttrs)
		}
	case xml.EndElement:
		t.depth--
	}
	return tok, nil
}

// keep counts n more bytes the reader holds on to, failing past maxKept.
func (t *docxTokens) keep(n int) error {
	t.kept += n
	if t.kept > t.maxKept {
		return docxLimit("%s holds more than %s of %s", t.part.name, mib(int64(t.maxKept)), t.keptWhat)
	}
	return nil
}

// eachInRoot streams the part's first element the way Decoder.Decode reads
// it (what precedes it is skipped, nothing after it is read): visit gets
// every token inside it with the depth of the element the token starts,
// ends or lies in, the root's children being at depth 1.
func (t *docxTokens) eachInRoot(visit func(tok xml.Token, depth int) error) error {
	for {
		tok, err := t.next()
		if err != nil {
			return err
		}
		if _, ok := tok.(xml.StartElement); ok {
			break
		}
	}
	for {
		tok, err := t.next()
		if err != nil {
			return err
		}
		depth := t.depth - 1
		if _, ok := tok.(xml.EndElement); ok {
			if depth < 0 {
				return nil // the root closed
			}
			depth++
		}
		if err := visit(tok, depth); err != nil {
			return err
		}
	}
}

// readDOCXRoot opens f and streams its first element into visit with the
// given limits, closing it afterwards.
func readDOCXRoot(pkg *docxPackage, name string, maxKept int, what string, visit func(t *docxTokens, tok xml.Token, depth int) error) error {
	p, err := openDOCXPart(pkg.files[name], pkg.size)
	if err != nil {
		return err
	}
	defer p.Close()
	t := newDOCXTokens(p, maxDOCXAuxElements, maxKept, what)
	return t.eachInRoot(func(tok xml.Token, depth int) error { return visit(t, tok, depth) })
}

// isDOCXLimit reports an error from one of the limits.
func isDOCXLimit(err error) bool {
	var le *docxLimitError
	return errors.As(err, &le)
}

// isWordML reports WordprocessingML elements (transitional or strict);
// DrawingML and other vocabularies reuse names like "p" and "t".
func isWordML(n xml.Name) bool { return n.Space == nsWordML || n.Space == nsWordMLStrict }

// attrVal returns the w:val attribute of an element.
func attrVal(t xml.StartElement) string { return attrNamed(t, "val") }

// attrNamed returns the value of the first attribute with the local name n.
func attrNamed(t xml.StartElement, n string) string {
	for _, a := range t.Attr {
		if a.Name.Local == n {
			return a.Value
		}
	}
	return ""
}

// attrLast returns the value of the last attribute with the local name n,
// which is the one Decoder.Decode keeps.
func attrLast(t xml.StartElement, n string) (string, bool) {
	v, ok := "", false
	for _, a := range t.Attr {
		if a.Name.Local == n {
			v, ok = a.Value, true
		}
	}
	return v, ok
}

// relAttr returns the r:<local> attribute (a relationship id).
func relAttr(t xml.StartElement, local string) string {
	for _, a := range t.Attr {
		if a.Name.Local == local && (a.Name.Space == nsRelationships || a.Name.Space == nsRelationshipsS) {
			return a.Value
		}
	}
	return ""
}

// isEOF reports the end of a part.
func isEOF(err error) bool { return errors.Is(err, io.EOF) }

// collapseSpace is strings.Join(strings.Fields(s), " ") without the slice
// of fields (a long text of short words would make it large), and s itself
// when there is nothing to collapse.
func collapseSpace(s string) string {
	if spaceCollapsed(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	start := -1 // of the current field
	for i, r := range s {
		switch {
		case !unicode.IsSpace(r):
			if start < 0 {
				start = i
			}
		case start >= 0:
			if b.Len() > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(s[start:i])
			start = -1
		}
	}
	if start >= 0 {
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(s[start:])
	}
	return b.String()
}

// spaceCollapsed reports s having no whitespace but single inner spaces.
func spaceCollapsed(s string) bool {
	prevSpace := true // a leading space is not collapsed
	for _, r := range s {
		space := unicode.IsSpace(r)
		if space && (prevSpace || r != ' ') {
			return false
		}
		prevSpace = space
	}
	return !prevSpace || s == ""
}
