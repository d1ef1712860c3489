package ingest

import (
	"archive/zip"
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"path"
	"strconv"
	"strings"

	"ragd"
)

// maxDOCXPart caps how much XML one DOCX part may inflate to, so a zip bomb
// fails as a parse error instead of exhausting memory.
const maxDOCXPart = 256 << 20

// parseDOCX streams word/document.xml: paragraphs become blocks, paragraph
// styles named "Title"/"heading N" (or with an outline level) become
// headings, numbered paragraphs list items, table rows table blocks.
func parseDOCX(data []byte, name string) (*Loaded, error) {
	fail := func(format string, args ...any) (*Loaded, error) {
		return nil, parseErr(name, ragd.SourceDOCX, format, args...)
	}
	files, main, problem := openDOCX(data)
	if problem != "" {
		return fail("%s", problem)
	}
	var err error
	var styles map[string]docxStyle
	if f := files[path.Join(path.Dir(main), "styles.xml")]; f != nil {
		if styles, err = readDOCXStyles(f); err != nil {
			return fail("corrupt styles.xml: %v", err)
		}
	}
	rc, err := openPart(files[main])
	if err != nil {
		return fail("%s: %v", main, err)
	}
	defer rc.Close()
	blocks, err := readDOCXBody(rc, styles)
	if err != nil {
		return fail("corrupt %s: %v", main, err)
	}
	l := &Loaded{Blocks: blocks}
	if f := files["docProps/core.xml"]; f != nil {
		l.Title = readDOCXTitle(f)
	}
	return l, nil
}

// docxMainPart finds the main document part through the package
// relationships, falling back to the conventional name.
func docxMainPart(files map[string]*zip.File) string {
	const fallback = "word/document.xml"
	f := files["_rels/.rels"]
	if f == nil {
		return fallback
	}
	var rels struct {
		Rel []struct {
			Type   string `xml:"Type,attr"`
			Target string `xml:"Target,attr"`
		} `xml:"Relationship"`
	}
	if err := decodePart(f, &rels); err != nil {
		return fallback
	}
	for _, r := range rels.Rel {
		if strings.HasSuffix(r.Type, "/officeDocument") {
			return strings.TrimPrefix(path.Clean("/"+r.Target), "/")
		}
	}
	return fallback
}

type limitedPart struct {
	io.Reader
	io.Closer
}

func openPart(f *zip.File) (io.ReadCloser, error) {
	rc, err := f.Open()
	if err != nil {
		return nil, err
	}
	return limitedPart{&capReader{r: rc, left: maxDOCXPart}, rc}, nil
}

// capReader fails, rather than truncating silently, once more than left
// bytes were read.
type capReader struct {
	r    io.Reader
	left int64
}

func (c *capReader) Read(p []byte) (int, error) {
	if c.left <= 0 {
		return 0, fmt.Errorf("part inflates to more than %d bytes", int64(maxDOCXPart))
	}
	if int64(len(p)) > c.left {
		p = p[:c.left]
	}
	n, err := c.r.Read(p)
	c.left -= int64(n)
	return n, err
}

func decodePart(f *zip.File, v any) error {
	rc, err := openPart(f)
	if err != nil {
		return err
	}
	defer rc.Close()
	return xml.NewDecoder(rc).Decode(v)
}

// docxStyle is what ingest needs to know of a paragraph style.
type docxStyle struct {
	level int  // heading level, 0 for body text
	list  bool // a list paragraph style
	skip  bool // a table-of-contents entry, which only repeats headings
}

func readDOCXStyles(f *zip.File) (map[string]docxStyle, error) {
	type val struct {
		Val string `xml:"val,attr"`
	}
	var doc struct {
		Styles []struct {
			Type    string `xml:"type,attr"`
			ID      string `xml:"styleId,attr"`
			Name    val    `xml:"name"`
			BasedOn val    `xml:"basedOn"`
			Outline *val   `xml:"pPr>outlineLvl"`
		} `xml:"style"`
	}
	if err := decodePart(f, &doc); err != nil {
		return nil, err
	}
	type raw struct {
		name, basedOn string
		outline       int
	}
	byID := map[string]raw{}
	for _, s := range doc.Styles {
		if s.Type != "" && s.Type != "paragraph" {
			continue
		}
		r := raw{name: strings.ToLower(strings.TrimSpace(s.Name.Val)), basedOn: s.BasedOn.Val, outline: -1}
		if s.Outline != nil {
			if n, err := strconv.Atoi(s.Outline.Val); err == nil {
				r.outline = n
			}
		}
		byID[s.ID] = r
	}
	out := make(map[string]docxStyle, len(byID))
	for id, r := range byID {
		var st docxStyle
		switch {
		case r.name == "title":
			st.level = 1
		case strings.HasPrefix(r.name, "toc "), r.name == "toc heading":
			st.skip = true
		case strings.HasPrefix(r.name, "list"):
			st.list = true
		}
		// walk up the basedOn chain (bounded: it may loop) for a heading level
		for cur, depth := r, 0; st.level == 0 && !st.skip && depth < 10; depth++ {
			if n, ok := strings.CutPrefix(cur.name, "heading "); ok {
				if v, err := strconv.Atoi(n); err == nil && v > 0 {
					st.level = v
				}
			} else if cur.outline >= 0 && cur.outline < 9 {
				st.level = cur.outline + 1
			}
			next, ok := byID[cur.basedOn]
			if !ok {
				break
			}
			cur = next
		}
		out[id] = st
	}
	return out, nil
}

func readDOCXTitle(f *zip.File) string {
	var core struct {
		Title string `xml:"title"`
	}
	if decodePart(f, &core) != nil {
		return ""
	}
	return core.Title
}

const markupCompatNS = "http://schemas.openxmlformats.org/markup-compatibility/2006"

// isWordML reports WordprocessingML elements (transitional or strict);
// DrawingML and other vocabularies reuse names like "p" and "t".
func isWordML(n xml.Name) bool {
	return n.Space == "http://schemas.openxmlformats.org/wordprocessingml/2006/main" ||
		n.Space == "http://purl.oclc.org/ooxml/wordprocessingml/main"
}

type docxPara struct {
	text    strings.Builder
	style   string
	outline int
	list    bool
}

type docxCell struct{ text strings.Builder }

// readDOCXBody streams the document XML. Paragraphs nest (text boxes sit
// inside paragraphs) and so do tables, hence the container stack: a closed
// paragraph's text goes to the enclosing table cell if there is one, else it
// becomes a block.
func readDOCXBody(r io.Reader, styles map[string]docxStyle) ([]Block, error) {
	var (
		blocks     []Block
		containers []any // *docxPara or *docxCell
		rows       [][]string
		names      []string // open element names, to know a run's children
		inText     bool
	)
	para := func() *docxPara {
		for i := len(containers) - 1; i >= 0; i-- {
			if p, ok := containers[i].(*docxPara); ok {
				return p
			}
		}
		return nil
	}
	cell := func() *docxCell {
		if n := len(containers); n > 0 {
			c, _ := containers[n-1].(*docxCell)
			return c
		}
		return nil
	}
	inRun := func() bool { return len(names) > 0 && names[len(names)-1] == "r" }
	appendTo := func(b *strings.Builder, s string) {
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(s)
	}

	d := xml.NewDecoder(r)
	for {
		tok, err := d.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			local := t.Name.Local
			// mc:Fallback repeats mc:Choice for older readers; deleted and
			// moved-away revisions are not the document's text.
			if (local == "Fallback" && t.Name.Space == markupCompatNS) || (isWordML(t.Name) && (local == "del" || local == "moveFrom")) {
				if err := d.Skip(); err != nil {
					return nil, err
				}
				continue
			}
			if !isWordML(t.Name) {
				local = "" // keep the nesting, ignore the element
			}
			switch local {
			case "p":
				containers = append(containers, &docxPara{outline: -1})
			case "pStyle":
				if p := para(); p != nil {
					p.style = attrVal(t)
				}
			case "outlineLvl":
				if p := para(); p != nil {
					if n, err := strconv.Atoi(attrVal(t)); err == nil {
						p.outline = n
					}
				}
			case "numPr":
				if p := para(); p != nil {
					p.list = true
				}
			case "t":
				inText = inRun()
			case "tab", "br", "cr":
				if p := para(); p != nil && inRun() {
					p.text.WriteString(map[string]string{"tab": "\t", "br": "\n", "cr": "\n"}[local])
				}
			case "noBreakHyphen":
				if p := para(); p != nil && inRun() {
					p.text.WriteByte('-')
				}
			case "tr":
				rows = append(rows, nil)
			case "tc":
				containers = append(containers, &docxCell{})
			}
			names = append(names, local)
		case xml.CharData:
			if p := para(); inText && p != nil {
				p.text.Write(t)
			}
		case xml.EndElement:
			if len(names) > 0 {
				names = names[:len(names)-1]
			}
			if !isWordML(t.Name) {
				continue
			}
			switch t.Name.Local {
			case "t":
				inText = false
			case "p":
				p, ok := containers[len(containers)-1].(*docxPara)
				if !ok {
					return nil, errors.New("paragraph closed out of order")
				}
				containers = containers[:len(containers)-1]
				text := strings.TrimSpace(p.text.String())
				st := styles[p.style]
				switch {
				case text == "" || st.skip:
				case cell() != nil:
					appendTo(&cell().text, text)
				default:
					blocks = append(blocks, docxBlock(p, st, text))
				}
			case "tc":
				c, ok := containers[len(containers)-1].(*docxCell)
				if !ok || len(rows) == 0 {
					return nil, errors.New("table cell closed out of order")
				}
				containers = containers[:len(containers)-1]
				rows[len(rows)-1] = append(rows[len(rows)-1], strings.Join(strings.Fields(c.text.String()), " "))
			case "tr":
				if len(rows) == 0 {
					return nil, errors.New("table row closed out of order")
				}
				row := joinCells(rows[len(rows)-1])
				rows = rows[:len(rows)-1]
				switch {
				case strings.Trim(row, " |") == "":
				case cell() != nil: // a nested table: its rows are the cell's text
					appendTo(&cell().text, row)
				default:
					blocks = append(blocks, Block{Kind: BlockTable, Text: row})
				}
			}
		}
	}
	if len(containers) > 0 {
		return nil, io.ErrUnexpectedEOF
	}
	return blocks, nil
}

func docxBlock(p *docxPara, st docxStyle, text string) Block {
	level := st.level
	if p.outline >= 0 && p.outline < 9 {
		level = p.outline + 1
	}
	switch {
	case level > 0:
		return Block{Kind: BlockHeading, Level: min(level, 6), Text: text}
	case p.list || st.list:
		return Block{Kind: BlockListItem, Text: "- " + text}
	}
	return Block{Kind: BlockParagraph, Text: text}
}

// attrVal returns the w:val attribute of an element.
func attrVal(t xml.StartElement) string {
	for _, a := range t.Attr {
		if a.Name.Local == "val" {
			return a.Value
		}
	}
	return ""
}

// openDOCX opens data as a DOCX package: its parts by name and the name of
// the main document part, or a description of why it is not a DOCX.
func openDOCX(data []byte) (map[string]*zip.File, string, string) {
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return nil, "", fmt.Sprintf("not a DOCX file (not a zip archive): %v", err)
	}
	files := make(map[string]*zip.File, len(zr.File))
	for _, f := range zr.File {
		files[strings.TrimPrefix(f.Name, "/")] = f
	}
	main := docxMainPart(files)
	if files[main] == nil {
		return nil, "", "not a DOCX file: no " + main
	}
	return files, main, ""
}
