package docx

import (
	"archive/zip"
	"bytes"
	"strings"
	"testing"

	"ragd/internal/ingest/document"
)

const wordNS = `xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main" xmlns:mc="http://schemas.openxmlformats.org/markup-compatibility/2006"`

func buildDOCX(t testing.TB, parts map[string]string) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, name := range []string{"[Content_Types].xml", "_rels/.rels", "word/document.xml", "word/styles.xml", "docProps/core.xml"} {
		body, ok := parts[name]
		if !ok {
			continue
		}
		w, err := zw.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		w.Write([]byte(body))
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestDOCXStructures(t *testing.T) {
	styles := `<?xml version="1.0"?><w:styles ` + wordNS + `>
<w:style w:type="paragraph" w:styleId="Normal"><w:name w:val="Normal"/></w:style>
<w:style w:type="paragraph" w:styleId="Kop2"><w:name w:val="heading 2"/></w:style>
<w:style w:type="paragraph" w:styleId="MyHeading"><w:name w:val="Fancy"/><w:basedOn w:val="Kop2"/></w:style>
<w:style w:type="paragraph" w:styleId="Outline"><w:name w:val="Custom"/><w:pPr><w:outlineLvl w:val="2"/></w:pPr></w:style>
<w:style w:type="paragraph" w:styleId="Titel"><w:name w:val="Title"/></w:style>
<w:style w:type="paragraph" w:styleId="TOC1"><w:name w:val="toc 1"/></w:style>
</w:styles>`
	doc := `<?xml version="1.0"?><w:document ` + wordNS + `><w:body>
<w:p><w:pPr><w:pStyle w:val="Titel"/></w:pPr><w:r><w:t>Doc Title</w:t></w:r></w:p>
<w:p><w:pPr><w:pStyle w:val="TOC1"/></w:pPr><w:r><w:t>Section A 3</w:t></w:r></w:p>
<w:p><w:pPr><w:pStyle w:val="Kop2"/><w:tabs><w:tab w:val="left" w:pos="720"/></w:tabs></w:pPr><w:r><w:t>Section</w:t></w:r><w:r><w:t xml:space="preserve"> A</w:t></w:r></w:p>
<w:p><w:r><w:t>Name:</w:t><w:tab/><w:t>value</w:t><w:br/><w:t>next line</w:t></w:r><w:del><w:r><w:delText>gone</w:delText></w:r></w:del></w:p>
<w:p><w:pPr><w:numPr><w:ilvl w:val="0"/><w:numId w:val="1"/></w:numPr></w:pPr><w:r><w:t>bullet one</w:t></w:r></w:p>
<w:tbl><w:tr><w:tc><w:p><w:r><w:t>K</w:t></w:r></w:p></w:tc><w:tc><w:p><w:r><w:t>V</w:t></w:r></w:p><w:p><w:r><w:t>more</w:t></w:r></w:p></w:tc></w:tr>
<w:tr><w:tc><w:p><w:r><w:t>a</w:t></w:r></w:p></w:tc><w:tc><w:p><w:r><w:t>1</w:t></w:r></w:p></w:tc></w:tr></w:tbl>
<w:p><w:pPr><w:pStyle w:val="MyHeading"/></w:pPr><w:r><w:t>Inherited</w:t></w:r></w:p>
<w:p><w:pPr><w:pStyle w:val="Outline"/></w:pPr><w:r><w:t>Deep</w:t></w:r></w:p>
<w:p><w:r><mc:AlternateContent><mc:Choice Requires="wps"><w:drawing><w:txbxContent><w:p><w:r><w:t>In a text box</w:t></w:r></w:p></w:txbxContent></w:drawing></mc:Choice><mc:Fallback><w:pict><w:txbxContent><w:p><w:r><w:t>In a text box</w:t></w:r></w:p></w:txbxContent></w:pict></mc:Fallback></mc:AlternateContent></w:r></w:p>
</w:body></w:document>`
	data := buildDOCX(t, map[string]string{"word/document.xml": doc, "word/styles.xml": styles})
	l, err := Parse(data, "report.docx", false)
	if err != nil {
		t.Fatal(err)
	}
	want := []document.Block{
		{Kind: document.BlockHeading, Level: 1, Text: "Doc Title"},
		{Kind: document.BlockHeading, Level: 2, Text: "Section A"},
		{Kind: document.BlockParagraph, Text: "Name: value\nnext line"},
		{Kind: document.BlockListItem, Text: "- bullet one"},
		{Kind: document.BlockTable, Text: "K | V more"},
		{Kind: document.BlockTable, Text: "a | 1"},
		{Kind: document.BlockHeading, Level: 2, Text: "Inherited"},
		{Kind: document.BlockHeading, Level: 3, Text: "Deep"},
		{Kind: document.BlockParagraph, Text: "In a text box"},
	}
	assertBlocks(t, l.Blocks, want)
	if l.Title != "Doc Title" {
		t.Errorf("title without core.xml = %q", l.Title)
	}
}

func TestDOCXBrokenInputs(t *testing.T) {
	okDoc := `<w:document ` + wordNS + `><w:body><w:p><w:r><w:t>hi</w:t></w:r></w:p></w:body></w:document>`
	var notDocx bytes.Buffer
	zw := zip.NewWriter(&notDocx)
	w, _ := zw.Create("hello.txt")
	w.Write([]byte("a zip, but not a docx"))
	zw.Close()
	good := buildDOCX(t, map[string]string{"word/document.xml": okDoc})
	inputs := map[string][]byte{
		"random.docx":     []byte("PK\x03\x04 definitely not a real archive"),
		"plain.docx":      []byte("just text"),
		"notdocx.docx":    notDocx.Bytes(),
		"truncated.docx":  good[:len(good)/2],
		"corrupt.docx":    buildDOCX(t, map[string]string{"word/document.xml": `<w:document ` + wordNS + `><w:body><w:p><w:r><w:t>hi</w:r></w:p>`}),
		"unclosed.docx":   buildDOCX(t, map[string]string{"word/document.xml": `<w:document ` + wordNS + `><w:body><w:p><w:r><w:t>hi</w:t></w:r>`}),
		"badstyles.docx":  buildDOCX(t, map[string]string{"word/document.xml": okDoc, "word/styles.xml": "<w:styles><oops"}),
		"emptybody.docx":  buildDOCX(t, map[string]string{"word/document.xml": `<w:document ` + wordNS + `><w:body/></w:document>`}),
		"badrelpath.docx": buildDOCX(t, map[string]string{"_rels/.rels": `<Relationships><Relationship Type="http://x/officeDocument" Target="word/missing.xml"/></Relationships>`, "word/document.xml": okDoc}),
	}
	for name, data := range inputs {
		t.Run(name, func(t *testing.T) {
			_, err := Parse(data, name, false)
			pe := assertParseError(t, err)
			if !strings.HasPrefix(pe.Error(), `cannot read DOCX "`+name+`"`) {
				t.Errorf("message = %q", pe.Error())
			}
		})
	}
	if l, err := Parse(good, "good.docx", false); err != nil || l.NormalizedText() != "hi" {
		t.Errorf("minimal docx: %v %v", l, err)
	}
}
