package docx

import (
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"

	"ragd/internal/ingest/document"
)

// parseDOCX with images reads the pictures in the same pass, exactly as
// extractDOCXImages returns them, and the same text as without.
func TestDOCXOnePassImages(t *testing.T) {
	media := map[string][]byte{"media/diagram.png": imgPNG(t, 64, 48)}
	rels := `<Relationships><Relationship Id="rDiagram" Target="media/diagram.png"/></Relationships>`
	docs := map[string][]byte{
		"fitz":        readFixture(t, moduleFile(t, imgFitzModule, "testdata/test.docx")),
		"libreoffice": readFixture(t, moduleFile(t, "github.com/nguyenthenguyen/docx@v0.0.0-20230621112118-9c8e795a11db", "TestDocument.docx")),
		"story":       readFixture(t, moduleFile(t, pdfModule, "testdata/story.docx")),
		"synthetic": imgDOCX(t, `<w:p><w:r><w:t>Before.</w:t></w:r></w:p><w:p><w:r>`+imgDrawing(`descr="A diagram"`, "rDiagram")+
			`</w:r></w:p><w:p><w:pPr><w:pStyle w:val="Beschriftung"/></w:pPr><w:r><w:t>Figure 1: The diagram</w:t></w:r></w:p>`, media, rels),
	}
	for name, data := range docs {
		want, err := extractDOCXImages(data)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		text, err := parseDOCX(data, name, false)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		l, err := parseDOCX(data, name, true)
		if err != nil || l.ImagesErr != nil {
			t.Fatalf("%s: %v, %v", name, err, l.ImagesErr)
		}
		if !reflect.DeepEqual(l.Images, want) {
			t.Errorf("%s: one pass found %d images, extractDOCXImages %d (or they differ)", name, len(l.Images), len(want))
		}
		if l.Title != text.Title || !reflect.DeepEqual(l.Blocks, text.Blocks) {
			t.Errorf("%s: the text differs with images", name)
		}
		if text.Images != nil {
			t.Errorf("%s: images without asking", name)
		}
	}
	if l, _ := parseDOCX(docs["synthetic"], "s.docx", true); len(l.Images) != 1 || l.Images[0].Caption != "Figure 1: The diagram" {
		t.Errorf("synthetic: %+v", l.Images)
	}
}

// Corrupt relationships lose the pictures, not the text.
func TestDOCXOnePassBadRelationships(t *testing.T) {
	data := imgDOCX(t, `<w:p><w:r><w:t>The text.</w:t></w:r></w:p>`, nil, "<Relationships><Relationship")
	l, err := parseDOCX(data, "bad.docx", true)
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Blocks) != 1 || l.Blocks[0].Text != "The text." {
		t.Errorf("blocks %+v", l.Blocks)
	}
	var pe *document.ParseError
	if l.Images != nil || !errors.As(l.ImagesErr, &pe) || pe.Source != "bad.docx" ||
		!strings.Contains(l.ImagesErr.Error(), "corrupt relationships of word/document.xml") {
		t.Errorf("images %v, error %v", l.Images, l.ImagesErr)
	}
	if _, err := extractDOCXImages(data); err == nil {
		t.Error("extractDOCXImages read corrupt relationships")
	}
}

// A table cell outside any row makes the text unreadable, as it did, but
// not the pictures, which never minded.
func TestDOCXStrayCell(t *testing.T) {
	media := map[string][]byte{"media/pic.png": imgPNG(t, 40, 40)}
	data := imgDOCX(t, `<w:tc><w:p><w:r><w:t>Loose cell</w:t></w:r></w:p></w:tc><w:p><w:r>`+imgDrawing("", "rPic")+`</w:r></w:p>`,
		media, `<Relationships><Relationship Id="rPic" Target="media/pic.png"/></Relationships>`)
	if _, err := parseDOCX(data, "stray.docx", true); err == nil || !strings.Contains(err.Error(), "table cell closed out of order") {
		t.Errorf("parse: %v", err)
	}
	if imgs, err := extractDOCXImages(data); err != nil || len(imgs) != 1 {
		t.Errorf("images: %d, %v", len(imgs), err)
	}
}

// Nesting well within the depth limit is read: tables twenty deep.
func TestDOCXDeepLegalNesting(t *testing.T) {
	body := "<w:p><w:r><w:t>Start</w:t></w:r></w:p>" + strings.Repeat("<w:tbl><w:tr><w:tc>", 20) +
		"<w:p><w:r><w:t>deep</w:t></w:r></w:p>" + strings.Repeat("</w:tc></w:tr></w:tbl>", 20)
	l, err := Parse(imgDOCX(t, body, nil, "<Relationships/>"), "deep.docx", false)
	if err != nil || len(l.Blocks) != 2 || l.Blocks[1].Text != "deep" {
		t.Fatalf("%+v, %v", l, err)
	}
}

// The inflate guard checks the bytes that really come, whatever the
// header said.
func TestDOCXInflateGuard(t *testing.T) {
	for _, tc := range []struct {
		size, left int
		fail       bool
	}{{100, 100, false}, {101, 100, true}, {10 << 20, 1 << 20, true}, {0, 0, false}} {
		g := &docxInflate{r: strings.NewReader(strings.Repeat("x", tc.size)), name: "word/document.xml", left: int64(tc.left), ratio: true}
		n, err := io.Copy(io.Discard, g)
		if fail := err != nil; fail != tc.fail || (fail && !strings.Contains(err.Error(), "inflates more than 100×")) || n > int64(tc.left) {
			t.Errorf("%d bytes, %d allowed: read %d, %v", tc.size, tc.left, n, err)
		}
	}
}

func TestDOCXCollapseSpace(t *testing.T) {
	for _, s := range []string{"", " ", "a", " a", "a ", "a  b", "a b", "a\tb", "a\u00a0b", "\u2003a b\n", "a\xffb c", "\xff  \xfe", "ab  cd ef\r\n"} {
		if got, want := collapseSpace(s), strings.Join(strings.Fields(s), " "); got != want {
			t.Errorf("collapseSpace(%q) = %q, want %q", s, got, want)
		}
	}
}
