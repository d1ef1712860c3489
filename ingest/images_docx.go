package ingest

import (
	"archive/zip"
	"encoding/xml"
	"errors"
	"io"
	"path"
	"strings"

	"ragd"
)

// Namespaces of the pictures in WordprocessingML (transitional and strict).
const (
	nsDrawingML       = "http://schemas.openxmlformats.org/drawingml/2006/main"
	nsDrawingMLStrict = "http://purl.oclc.org/ooxml/drawingml/main"
	nsWordDrawing     = "http://schemas.openxmlformats.org/drawingml/2006/wordprocessingDrawing"
	nsWordDrawingS    = "http://purl.oclc.org/ooxml/drawingml/wordprocessingDrawing"
	nsRelationships   = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
	nsRelationshipsS  = "http://purl.oclc.org/ooxml/officeDocument/relationships"
	nsVML             = "urn:schemas-microsoft-com:vml"
	nsOfficeVML       = "urn:schemas-microsoft-com:office:office"
)

// docxImgPar is a paragraph, in the order paragraphs start, as the picture
// extraction sees it.
type docxImgPar struct {
	text    string // whitespace-collapsed
	caption bool   // styled Caption or opening with a caption label
	block   int    // index of the block it is or precedes, as Parse numbers them
}

// docxPic is one picture reference in document order.
type docxPic struct {
	par int    // innermost paragraph holding it, -1 if none
	rel string // relationship id of the media part
	alt string
}

// extractDOCXImages reads the pictures the main document part places
// (DrawingML a:blip r:embed and VML v:imagedata r:id), resolves them through
// the part's relationships to the media parts, and takes caption and
// context from the paragraphs around them. Headers, footers and notes are
// not searched.
func extractDOCXImages(data []byte) ([]Image, error) {
	fail := func(format string, args ...any) ([]Image, error) {
		return nil, parseErr("", ragd.SourceDOCX, format, args...)
	}
	files, main, problem := openDOCX(data)
	if problem != "" {
		return fail("%s", problem)
	}
	var err error
	dir := path.Dir(main)
	rels := map[string]string{}
	if f := files[path.Join(dir, "_rels", path.Base(main)+".rels")]; f != nil {
		if rels, err = readDOCXImageRels(f, dir); err != nil {
			return fail("corrupt relationships of %s: %v", main, err)
		}
	}
	var styles map[string]docxImgStyle
	if f := files[path.Join(dir, "styles.xml")]; f != nil {
		if styles, err = readDOCXImageStyles(f); err != nil {
			return fail("corrupt styles.xml: %v", err)
		}
	}
	rc, err := openPart(files[main])
	if err != nil {
		return fail("%s: %v", main, err)
	}
	defer rc.Close()
	pars, pics, err := readDOCXPictures(rc, styles)
	if err != nil {
		return fail("corrupt %s: %v", main, err)
	}

	var (
		sink  imageSink
		media = map[string][]byte{} // parts already read
	)
	for _, pic := range pics {
		if sink.full() {
			break
		}
		name, ok := rels[pic.rel]
		if !ok || files[name] == nil {
			continue // an external link or a dangling id
		}
		body, shared := media[name]
		if !shared {
			if body = readMedia(files[name], sink.room()); body == nil {
				continue
			}
			media[name] = body
		}
		img := Image{Data: body, Alt: pic.alt}
		if !sink.accept(&img, name, shared) {
			continue
		}
		img.Position, img.Caption, img.Nearby = docxPictureText(pars, pic)
		sink.add(img, shared)
	}
	return sink.out, nil
}

// readMedia returns the inflated part, nil if it is unreadable or larger
// than limit bytes.
func readMedia(f *zip.File, limit int) []byte {
	if limit <= 0 || f.UncompressedSize64 > uint64(limit) {
		return nil
	}
	rc, err := f.Open()
	if err != nil {
		return nil
	}
	defer rc.Close()
	b, err := io.ReadAll(io.LimitReader(rc, int64(limit)+1))
	if err != nil || len(b) > limit || len(b) == 0 {
		return nil
	}
	return b
}

// readDOCXImageRels maps the relationship ids of a part to the package
// paths of their internal targets (dir is the part's folder).
func readDOCXImageRels(f *zip.File, dir string) (map[string]string, error) {
	var rels struct {
		Rel []struct {
			ID     string `xml:"Id,attr"`
			Target string `xml:"Target,attr"`
			Mode   string `xml:"TargetMode,attr"`
		} `xml:"Relationship"`
	}
	if err := decodePart(f, &rels); err != nil {
		return nil, err
	}
	out := make(map[string]string, len(rels.Rel))
	for _, r := range rels.Rel {
		if strings.EqualFold(r.Mode, "External") || r.Target == "" {
			continue
		}
		t := r.Target
		if !strings.HasPrefix(t, "/") {
			t = path.Join("/", dir, t)
		}
		out[r.ID] = strings.TrimPrefix(path.Clean(t), "/")
	}
	return out, nil
}

// docxImgStyle is what picture extraction needs of a paragraph style.
type docxImgStyle struct {
	caption bool // the built-in Caption style (its name stays "caption" in every UI language)
	skip    bool // a table-of-contents entry, which Parse drops
}

func readDOCXImageStyles(f *zip.File) (map[string]docxImgStyle, error) {
	var doc struct {
		Styles []struct {
			Type string `xml:"type,attr"`
			ID   string `xml:"styleId,attr"`
			Name struct {
				Val string `xml:"val,attr"`
			} `xml:"name"`
		} `xml:"style"`
	}
	if err := decodePart(f, &doc); err != nil {
		return nil, err
	}
	out := make(map[string]docxImgStyle, len(doc.Styles))
	for _, s := range doc.Styles {
		if s.Type != "" && s.Type != "paragraph" {
			continue
		}
		n := strings.ToLower(strings.TrimSpace(s.Name.Val))
		out[s.ID] = docxImgStyle{
			caption: n == "caption",
			skip:    strings.HasPrefix(n, "toc ") || n == "toc heading",
		}
	}
	return out, nil
}

// Frame kinds of the element stack in readDOCXPictures.
const (
	frameOther = iota
	framePara
	frameCell
	frameRow
	frameRun
	frameText
	frameDrawing
	frameShape
)

type docxImgFrame struct {
	kind int
	par  int             // framePara: index into pars
	text strings.Builder // framePara: the paragraph's text
	full bool            // frameCell, frameRow: has text
	alt  string          // frameDrawing, frameShape
}

// readDOCXPictures streams the document XML like readDOCXBody (whose block
// numbering it follows) and returns its paragraphs and picture references.
func readDOCXPictures(r io.Reader, styles map[string]docxImgStyle) ([]docxImgPar, []docxPic, error) {
	var (
		pars   []docxImgPar
		pics   []docxPic
		stack  []*docxImgFrame
		blocks int
		// style of each open paragraph (parallel to its frame)
		parStyle = map[int]string{}
	)
	innermost := func(kind int) *docxImgFrame {
		for i := len(stack) - 1; i >= 0; i-- {
			if stack[i].kind == kind {
				return stack[i]
			}
		}
		return nil
	}
	// container returns the innermost open paragraph or cell: what a closing
	// paragraph's text goes to in readDOCXBody.
	container := func() *docxImgFrame {
		for i := len(stack) - 1; i >= 0; i-- {
			if k := stack[i].kind; k == framePara || k == frameCell {
				return stack[i]
			}
		}
		return nil
	}
	parent := func() int {
		if len(stack) == 0 {
			return frameOther
		}
		return stack[len(stack)-1].kind
	}
	addPic := func(rel, alt string) {
		if rel == "" {
			return
		}
		pic := docxPic{par: -1, rel: rel, alt: imgOneLine(alt)}
		if p := innermost(framePara); p != nil {
			pic.par = p.par
		}
		pics = append(pics, pic)
	}

	d := xml.NewDecoder(r)
	for {
		tok, err := d.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, nil, err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			local, word := t.Name.Local, isWordML(t.Name)
			if (local == "Fallback" && t.Name.Space == markupCompatNS) || (word && (local == "del" || local == "moveFrom")) {
				if err := d.Skip(); err != nil {
					return nil, nil, err
				}
				continue
			}
			f := &docxImgFrame{kind: frameOther}
			switch {
			case word:
				switch local {
				case "p":
					f.kind, f.par = framePara, len(pars)
					pars = append(pars, docxImgPar{})
				case "pStyle":
					if p := innermost(framePara); p != nil {
						parStyle[p.par] = attrVal(t)
					}
				case "tc":
					f.kind = frameCell
				case "tr":
					f.kind = frameRow
				case "r":
					f.kind = frameRun
				case "t":
					if parent() == frameRun {
						f.kind = frameText
					}
				case "tab", "br", "cr", "noBreakHyphen":
					if p := innermost(framePara); p != nil && parent() == frameRun {
						if local == "noBreakHyphen" {
							p.text.WriteByte('-')
						} else {
							p.text.WriteByte(' ')
						}
					}
				case "drawing":
					f.kind = frameDrawing
				}
			case local == "docPr" && (t.Name.Space == nsWordDrawing || t.Name.Space == nsWordDrawingS):
				if dr := innermost(frameDrawing); dr != nil {
					dr.alt = attrNamed(t, "descr")
					if strings.TrimSpace(dr.alt) == "" {
						dr.alt = attrNamed(t, "title")
					}
				}
			case local == "blip" && (t.Name.Space == nsDrawingML || t.Name.Space == nsDrawingMLStrict):
				alt := ""
				if dr := innermost(frameDrawing); dr != nil {
					alt = dr.alt
				}
				addPic(relAttr(t, "embed"), alt)
			case t.Name.Space == nsVML && local == "imagedata":
				alt := attrNamed(t, "title") // o:title
				if sh := innermost(frameShape); sh != nil && strings.TrimSpace(sh.alt) != "" {
					alt = sh.alt
				}
				addPic(relAttr(t, "id"), alt)
			case t.Name.Space == nsVML && (local == "shape" || local == "rect" || local == "roundrect" || local == "oval"):
				f.kind, f.alt = frameShape, attrNamed(t, "alt")
			}
			stack = append(stack, f)
		case xml.CharData:
			if parent() == frameText {
				if p := innermost(framePara); p != nil {
					p.text.Write(t)
				}
			}
		case xml.EndElement:
			if len(stack) == 0 {
				return nil, nil, errors.New("element closed out of order")
			}
			f := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			switch f.kind {
			case framePara:
				text := imgOneLine(f.text.String())
				st := styles[parStyle[f.par]]
				delete(parStyle, f.par)
				pars[f.par] = docxImgPar{
					text:    text,
					caption: text != "" && (st.caption || imgCaptionStart.MatchString(text)),
					block:   blocks,
				}
				switch c := container(); {
				case text == "" || st.skip:
				case c != nil && c.kind == frameCell:
					c.full = true
				default: // also a text box paragraph inside a paragraph

					blocks++
				}
			case frameCell:
				if row := innermost(frameRow); row != nil && f.full {
					row.full = true
				}
			case frameRow:
				switch c := container(); {
				case !f.full:
				case c != nil && c.kind == frameCell:
					c.full = true // a nested table: its rows are the cell's text
				default:
					blocks++
				}
			}
		}
	}
	if len(stack) > 0 {
		return nil, nil, io.ErrUnexpectedEOF
	}
	return pars, pics, nil
}

// attrNamed returns the value of the attribute with the local name n.
func attrNamed(t xml.StartElement, n string) string {
	for _, a := range t.Attr {
		if a.Name.Local == n {
			return a.Value
		}
	}
	return ""
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

// docxPictureText finds the block position, caption and surrounding text
// of a picture from the paragraphs around it.
func docxPictureText(pars []docxImgPar, pic docxPic) (position int, caption, nearby string) {
	if pic.par < 0 || pic.par >= len(pars) {
		return 0, imgClip(pic.alt, maxCaptionChars), ""
	}
	own := pars[pic.par]
	position = own.block
	// the nearest non-empty paragraph on each side
	near := func(from, step int) int {
		for j := from + step; j >= 0 && j < len(pars); j += step {
			if pars[j].text != "" {
				return j
			}
		}
		return -1
	}
	prev, next := near(pic.par, -1), near(pic.par, 1)
	capIdx := -1
	switch {
	case next >= 0 && pars[next].caption:
		capIdx = next
	case prev >= 0 && pars[prev].caption:
		capIdx = prev
	case own.caption:
		capIdx = pic.par
	}
	if capIdx >= 0 {
		caption = pars[capIdx].text
	} else {
		caption = pic.alt
	}
	caption = imgClip(caption, maxCaptionChars)

	// context: the picture's own paragraph, then the paragraphs before and
	// after it (not the caption), at most three on each side
	ownText := ""
	if capIdx != pic.par {
		ownText = imgClip(own.text, NearbyChars)
	}
	room := NearbyChars - len(ownText)
	gather := func(step, budget int) []string {
		var parts []string
		n := 0
		for j := pic.par + step; j >= 0 && j < len(pars) && len(parts) < 3 && n < budget; j += step {
			if j == capIdx || pars[j].text == "" {
				continue
			}
			parts = append(parts, pars[j].text)
			n += len(pars[j].text) + 1
		}
		return parts
	}
	var before string
	if b := gather(-1, room/2); len(b) > 0 {
		for i, j := 0, len(b)-1; i < j; i, j = i+1, j-1 {
			b[i], b[j] = b[j], b[i]
		}
		before = imgClipTail(strings.Join(b, " "), room/2)
	}
	room -= len(before)
	var after string
	if a := gather(1, room); len(a) > 0 {
		after = imgClip(strings.Join(a, " "), room)
	}
	var parts []string
	for _, s := range []string{before, ownText, after} {
		if s != "" {
			parts = append(parts, s)
		}
	}
	return position, caption, strings.Join(parts, " ")
}
