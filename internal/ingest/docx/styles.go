package docx

import (
	"encoding/xml"
	"path"
	"strconv"
	"strings"
)

// docxStyle is what the reader needs to know of a paragraph style.
type docxStyle struct {
	level   int  // heading level, 0 for body text
	list    bool // a list paragraph style
	skip    bool // a table-of-contents entry, which only repeats headings
	caption bool // the built-in Caption style (its name stays "caption" in every UI language)
}

// docxStyleDecl is a w:style element as read: Decoder.Decode's view of it
// (the last of repeated attributes and children wins).
type docxStyleDecl struct {
	typ, id, name, basedOn, outline string
}

// docxRawStyle is a declared paragraph style before its basedOn chain is
// followed; of its name it keeps only what the resolution asks.
type docxRawStyle struct {
	basedOn  string
	outline  int  // outline level, -1 if none
	heading  int  // N of the name "heading N", 0 without a number
	headingN bool // named "heading …"
	docxStyle
}

// readDOCXStyles streams styles.xml (next to the main part) into the
// paragraph styles by id; nil without the part.
func readDOCXStyles(pkg *docxPackage) (map[string]docxStyle, error) {
	name := path.Join(path.Dir(pkg.main), "styles.xml")
	if pkg.files[name] == nil {
		return nil, nil
	}
	var (
		raw   = map[string]docxRawStyle{}
		cur   *docxStyleDecl // the open w:style
		inPPr bool
		count int
	)
	err := readDOCXRoot(pkg, name, maxDOCXKept, "style ids", func(t *docxTokens, tok xml.Token, depth int) error {
		switch e := tok.(type) {
		case xml.StartElement:
			switch {
			case depth == 1 && e.Name.Local == "style":
				if count++; count > maxDOCXStyles {
					return docxLimit("%s defines more than %d styles", name, maxDOCXStyles)
				}
				cur = &docxStyleDecl{}
				cur.typ, _ = attrLast(e, "type")
				cur.id, _ = attrLast(e, "styleId")
			case cur != nil && depth == 2:
				cur.child(e)
				inPPr = e.Name.Local == "pPr"
			case cur != nil && depth == 3 && inPPr && e.Name.Local == "outlineLvl":
				if v, ok := attrLast(e, "val"); ok {
					cur.outline = v
				}
			}
		case xml.EndElement:
			switch {
			case depth == 2:
				inPPr = false
			case depth == 1 && cur != nil:
				s := cur
				cur = nil
				return s.add(t, raw)
			}
		}
		return nil
	})
	if err != nil {
		return nil, docxCorrupt("styles.xml", err)
	}
	return resolveDOCXStyles(raw), nil
}

// child reads the w:name and w:basedOn children of a style.
func (s *docxStyleDecl) child(e xml.StartElement) {
	v, ok := attrLast(e, "val")
	switch {
	case !ok:
	case e.Name.Local == "name":
		s.name = v
	case e.Name.Local == "basedOn":
		s.basedOn = v
	}
}

// add files a paragraph style (or one without a type) under its id.
func (s *docxStyleDecl) add(t *docxTokens, raw map[string]docxRawStyle) error {
	if s.typ != "" && s.typ != "paragraph" {
		return nil
	}
	if err := t.keep(len(s.id) + len(s.basedOn)); err != nil {
		return err
	}
	name := strings.ToLower(strings.TrimSpace(s.name))
	r := docxRawStyle{basedOn: s.basedOn, outline: -1}
	if n, err := strconv.Atoi(s.outline); err == nil {
		r.outline = n
	}
	if n, ok := strings.CutPrefix(name, "heading "); ok {
		r.headingN = true
		if v, err := strconv.Atoi(n); err == nil && v > 0 {
			r.heading = v
		}
	}
	switch {
	case name == "title":
		r.level = 1
	case strings.HasPrefix(name, "toc "), name == "toc heading":
		r.skip = true
	case strings.HasPrefix(name, "list"):
		r.list = true
	}
	r.caption = name == "caption"
	raw[s.id] = r
	return nil
}

// resolveDOCXStyles gives every style the heading level found along its
// basedOn chain (bounded: the chain may loop).
func resolveDOCXStyles(raw map[string]docxRawStyle) map[string]docxStyle {
	out := make(map[string]docxStyle, len(raw))
	for id, r := range raw {
		st := r.docxStyle
		for cur, depth := r, 0; st.level == 0 && !st.skip && depth < 10; depth++ {
			if cur.headingN {
				st.level = cur.heading
			} else if cur.outline >= 0 && cur.outline < 9 {
				st.level = cur.outline + 1
			}
			next, ok := raw[cur.basedOn]
			if !ok {
				break
			}
			cur = next
		}
		out[id] = st
	}
	return out
}
