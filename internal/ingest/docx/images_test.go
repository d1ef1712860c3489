package docx

import (
	"archive/zip"
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/gif"
	"image/jpeg"
	"image/png"
	"io"
	"strings"
	"testing"

	"ragd"
	"ragd/internal/ingest/document"
)

// imgZipEntry returns a zip entry of a real DOCX.
func imgZipEntry(t *testing.T, data []byte, name string) []byte {
	t.Helper()
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	rc, err := zr.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	b, err := io.ReadAll(rc)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// imgBlockAt returns the text of the block at Position, as Parse numbers them.
func imgBlockAt(t *testing.T, data []byte, pos int) string {
	t.Helper()
	l, err := Parse(data, "doc.docx", false)
	if err != nil {
		t.Fatal(err)
	}
	if pos < 0 || pos >= len(l.Blocks) {
		t.Fatalf("position %d outside the %d blocks", pos, len(l.Blocks))
	}
	return l.Blocks[pos].Text
}

// go-fitz's test.docx is an accessibility sample document: a GIF of the
// web access symbol (141x131) and a PNG chart (284x140), both floating
// beside the paragraphs that mention them, with alt text and no caption
// paragraph.
func TestExtractImagesDOCXFitzSample(t *testing.T) {
	data := readFixture(t, moduleFile(t, imgFitzModule, "testdata/test.docx"))
	imgs, err := ExtractImages(data)
	if err != nil {
		t.Fatal(err)
	}
	if len(imgs) != 2 {
		t.Fatalf("%d images, want 2", len(imgs))
	}
	want := []struct {
		format, media, caption, nearby, block string
		w, h                                  int
	}{
		{"gif", "word/media/image1.gif", "Web Access Symbol", "image of the web accessibility symbol", "Documents may contain images.", 141, 131},
		{"png", "word/media/image2.png", "Chart of Screen Reader Market Share. (Unfortunately,", "such as charts or graphs, require long descriptions", "Some images, such as charts", 284, 140},
	}
	for i, w := range want {
		img := imgs[i]
		if img.Index != i || img.Page != 0 || img.Format != w.format || img.Width != w.w || img.Height != w.h {
			t.Errorf("image %d: index %d page %d %s %dx%d, want %s %dx%d", i, img.Index, img.Page, img.Format, img.Width, img.Height, w.format, w.w, w.h)
		}
		if !bytes.Equal(img.Data, imgZipEntry(t, data, w.media)) {
			t.Errorf("image %d: data differs from %s", i, w.media)
		}
		if !strings.HasPrefix(img.Caption, w.caption) || img.Alt != img.Caption {
			t.Errorf("image %d: caption %q, alt %q; want the alt text %q…", i, img.Caption, img.Alt, w.caption)
		}
		if !strings.Contains(img.Nearby, w.nearby) || len(img.Nearby) > document.NearbyChars+10 {
			t.Errorf("image %d: nearby %q (%d bytes) lacks %q", i, img.Nearby, len(img.Nearby), w.nearby)
		}
		if got := imgBlockAt(t, data, img.Position); !strings.HasPrefix(got, w.block) {
			t.Errorf("image %d: block at position %d is %q, want the paragraph %q…", i, img.Position, got, w.block)
		}
		if img.MIMEType() != "image/"+w.format {
			t.Errorf("image %d: MIME type %q", i, img.MIMEType())
		}
	}
	if !strings.Contains(imgs[0].Nearby, "Images") || !strings.Contains(imgs[0].Nearby, "Alt text should communicate") {
		t.Errorf("image 0: nearby lacks the heading before or the paragraph after: %q", imgs[0].Nearby)
	}
}

// nguyenthenguyen/docx's TestDocument.docx is a LibreOffice document with
// one PNG (238x97) anchored in its second paragraph, without alt text.
func TestExtractImagesDOCXLibreOffice(t *testing.T) {
	data := readFixture(t, moduleFile(t, "github.com/nguyenthenguyen/docx@v0.0.0-20230621112118-9c8e795a11db", "TestDocument.docx"))
	imgs, err := ExtractImages(data)
	if err != nil {
		t.Fatal(err)
	}
	if len(imgs) != 1 {
		t.Fatalf("%d images, want 1", len(imgs))
	}
	img := imgs[0]
	if img.Format != "png" || img.Width != 238 || img.Height != 97 || img.Caption != "" || img.Alt != "" {
		t.Errorf("got %s %dx%d caption %q alt %q", img.Format, img.Width, img.Height, img.Caption, img.Alt)
	}
	if img.Nearby != "This is a word document. This is a link." {
		t.Errorf("nearby %q", img.Nearby)
	}
	if got := imgBlockAt(t, data, img.Position); got != "This is a link." {
		t.Errorf("block at position %d: %q", img.Position, got)
	}
}

func TestExtractImagesDOCXWithoutImages(t *testing.T) {
	for mod, file := range map[string]string{
		pdfModule:                    "testdata/story.docx",
		"github.com/lu4p/cat@v0.1.5": "test/test.docx",
	} {
		imgs, err := ExtractImages(readFixture(t, moduleFile(t, mod, file)))
		if err != nil || len(imgs) != 0 {
			t.Errorf("%s: %d images, %v; want none", file, len(imgs), err)
		}
	}
}

func TestExtractImagesDOCXCorrupt(t *testing.T) {
	real := readFixture(t, moduleFile(t, imgFitzModule, "testdata/test.docx"))
	noDoc := imgZip(t, map[string][]byte{"word/styles.xml": []byte("<w:styles/>")})
	badXML := imgZip(t, map[string][]byte{"word/document.xml": []byte(imgDocxHead + `<w:p><w:r><w:t>open`)})
	badRels := imgDOCX(t, `<w:p/>`, nil, "<Relationships><Relationship")
	for name, data := range map[string][]byte{
		"empty":         nil,
		"not a zip":     []byte("PK\x03\x04 this is not really a zip archive"),
		"truncated":     real[:len(real)/2],
		"no document":   noDoc,
		"malformed XML": badXML,
		"bad rels":      badRels,
	} {
		imgs, err := ExtractImages(data)
		imgWantParseError(t, name, imgs, err, ragd.SourceDOCX)
	}
}

// The cases real documents at hand do not cover: caption paragraphs (by
// style and by label, after and before the picture), VML pictures, a
// picture in a table, alternate content, linked and tiny pictures, the
// image limits.
func TestExtractImagesDOCXCaptions(t *testing.T) {
	media := map[string][]byte{
		"media/diagram.png": imgPNG(t, 64, 48),
		"media/chart.gif":   imgGIF(t, 40, 40),
		"media/logo.jpeg":   imgJPEG(t, 50, 60),
		"media/bullet.png":  imgPNG(t, 16, 16),
	}
	body := `
<w:p><w:r><w:t>Intro paragraph about the pipeline.</w:t></w:r></w:p>
<w:p><w:r>` + imgDrawing(`descr="Pipeline diagram"`, "rDiagram") + `</w:r></w:p>
<w:p><w:pPr><w:pStyle w:val="Beschriftung"/></w:pPr><w:r><w:t xml:space="preserve">Abbildung 1: </w:t></w:r><w:r><w:t>The ingest pipeline</w:t></w:r></w:p>
<w:p><w:r><w:t>Text after the first figure.</w:t></w:r></w:p>
<w:p><w:r><w:t>Figure 2: Throughput by worker count</w:t></w:r></w:p>
<w:p><w:r><w:pict><v:shape alt="Throughput chart"><v:imagedata r:id="rChart" o:title="chart"/></v:shape></w:pict></w:r></w:p>
<w:p><w:r><w:t>Closing words.</w:t></w:r></w:p>
<w:p><w:r>` + imgDrawing(`descr="bullet"`, "rBullet") + `</w:r><w:r><w:t>Bullet with an icon</w:t></w:r></w:p>
<w:p><w:r><mc:AlternateContent><mc:Choice Requires="wps">` + imgDrawing(`title="Logo"`, "rLogo") + `</mc:Choice>
  <mc:Fallback><w:pict><v:shape><v:imagedata r:id="rLogo"/></v:shape></w:pict></mc:Fallback></mc:AlternateContent></w:r></w:p>
<w:p><w:r><w:t>Before the table.</w:t></w:r></w:p>
<w:tbl><w:tr><w:tc><w:p><w:r><w:t>Cell A</w:t></w:r></w:p></w:tc><w:tc><w:p><w:r>` + imgDrawing("", "rDiagram") + `</w:r></w:p></w:tc></w:tr></w:tbl>
<w:p><w:r><w:drawing><wp:inline><wp:docPr id="9" name="linked"/><a:graphic><a:graphicData><pic:pic><pic:blipFill><a:blip r:link="rExternal"/></pic:blipFill></pic:pic></a:graphicData></a:graphic></wp:inline></w:drawing></w:r></w:p>
<w:p><w:r>` + imgDrawing("", "rMissing") + `</w:r></w:p>
<w:p><w:r><w:t>Figure 3 shows nothing.</w:t></w:r></w:p>`
	rels := `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">
<Relationship Id="rDiagram" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/image" Target="media/diagram.png"/>
<Relationship Id="rChart" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/image" Target="/word/media/chart.gif"/>
<Relationship Id="rLogo" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/image" Target="media/logo.jpeg"/>
<Relationship Id="rBullet" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/image" Target="media/bullet.png"/>
<Relationship Id="rExternal" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/image" Target="https://example.com/x.png" TargetMode="External"/>
</Relationships>`
	data := imgDOCX(t, body, media, rels)
	imgs, err := ExtractImages(data)
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		format     string
		w, h       int
		caption    string
		alt        string
		block      string // text of the block at Position
		nearbyHas  []string
		nearbyLack string
	}{
		{"png", 64, 48, "Abbildung 1: The ingest pipeline", "Pipeline diagram", "Abbildung 1: The ingest pipeline",
			[]string{"Intro paragraph about the pipeline.", "Text after the first figure."}, "Abbildung"},
		{"gif", 40, 40, "Figure 2: Throughput by worker count", "Throughput chart", "Closing words.",
			[]string{"Text after the first figure.", "Closing words."}, "Figure 2"},
		{"jpeg", 50, 60, "Logo", "Logo", "Before the table.", []string{"Bullet with an icon", "Before the table."}, ""},
		{"png", 64, 48, "", "", "Cell A", []string{"Cell A", "Figure 3 shows nothing."}, ""},
	}
	if len(imgs) != len(want) {
		for _, im := range imgs {
			t.Logf("%+v", im)
		}
		t.Fatalf("%d images, want %d", len(imgs), len(want))
	}
	for i, w := range want {
		img := imgs[i]
		if img.Index != i || img.Format != w.format || img.Width != w.w || img.Height != w.h {
			t.Errorf("image %d: index %d %s %dx%d, want %s %dx%d", i, img.Index, img.Format, img.Width, img.Height, w.format, w.w, w.h)
		}
		if img.Caption != w.caption || img.Alt != w.alt {
			t.Errorf("image %d: caption %q alt %q, want %q, %q", i, img.Caption, img.Alt, w.caption, w.alt)
		}
		if got := imgBlockAt(t, data, img.Position); !strings.HasPrefix(got, w.block) {
			t.Errorf("image %d: block at position %d is %q, want %q", i, img.Position, got, w.block)
		}
		for _, s := range w.nearbyHas {
			if !strings.Contains(img.Nearby, s) {
				t.Errorf("image %d: nearby %q lacks %q", i, img.Nearby, s)
			}
		}
		if w.nearbyLack != "" && strings.Contains(img.Nearby, w.nearbyLack) {
			t.Errorf("image %d: nearby %q repeats the caption", i, img.Nearby)
		}
	}
	if !bytes.Equal(imgs[0].Data, media["media/diagram.png"]) || !bytes.Equal(imgs[3].Data, imgs[0].Data) {
		t.Error("image data is not the media part")
	}
}

func TestExtractImagesDOCXLimits(t *testing.T) {
	t.Run("count", func(t *testing.T) {
		var body strings.Builder
		for i := range document.MaxImages + 5 {
			fmt.Fprintf(&body, "<w:p><w:r><w:t>Paragraph %d</w:t></w:r><w:r>%s</w:r></w:p>", i, imgDrawing("", "rPic"))
		}
		data := imgDOCX(t, body.String(), map[string][]byte{"media/pic.png": imgPNG(t, 40, 40)},
			`<Relationships><Relationship Id="rPic" Target="media/pic.png"/></Relationships>`)
		imgs, err := ExtractImages(data)
		if err != nil || len(imgs) != document.MaxImages {
			t.Fatalf("%d images, %v; want %d", len(imgs), err, document.MaxImages)
		}
		if last := imgs[len(imgs)-1]; last.Index != document.MaxImages-1 || last.Position != document.MaxImages-1 {
			t.Errorf("last image: index %d position %d", last.Index, last.Position)
		}
	})
	t.Run("bytes", func(t *testing.T) {
		// parts of 4 MiB + 1 (PNG magic, then zeros: no readable size, so
		// never skipped as small): four fit in 20 MiB, the rest do not
		part := make([]byte, 4<<20+1)
		copy(part, "\x89PNG\r\n\x1a\n")
		media := map[string][]byte{}
		var body, rels strings.Builder
		rels.WriteString("<Relationships>")
		for i := range 6 {
			media[fmt.Sprintf("media/big%d.png", i)] = part
			fmt.Fprintf(&rels, `<Relationship Id="r%d" Target="media/big%d.png"/>`, i, i)
			fmt.Fprintf(&body, "<w:p><w:r>%s</w:r></w:p>", imgDrawing("", fmt.Sprintf("r%d", i)))
		}
		rels.WriteString("</Relationships>")
		imgs, err := ExtractImages(imgDOCX(t, body.String(), media, rels.String()))
		if err != nil {
			t.Fatal(err)
		}
		total := 0
		for _, img := range imgs {
			total += len(img.Data)
		}
		if len(imgs) != 4 || total > document.MaxImageBytes {
			t.Errorf("%d images of %d bytes, want 4 within %d", len(imgs), total, document.MaxImageBytes)
		}
	})
}

const imgDocxHead = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"
 xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"
 xmlns:wp="http://schemas.openxmlformats.org/drawingml/2006/wordprocessingDrawing"
 xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main"
 xmlns:pic="http://schemas.openxmlformats.org/drawingml/2006/picture"
 xmlns:v="urn:schemas-microsoft-com:vml" xmlns:o="urn:schemas-microsoft-com:office:office"
 xmlns:mc="http://schemas.openxmlformats.org/markup-compatibility/2006"><w:body>`

// imgDrawing is an inline DrawingML picture of the media with relationship id
// rel; docPr holds extra wp:docPr attributes (descr, title).
func imgDrawing(docPr, rel string) string {
	return `<w:drawing><wp:inline><wp:extent cx="952500" cy="952500"/><wp:docPr id="1" name="Picture 1" ` + docPr + `/>` +
		`<a:graphic><a:graphicData uri="http://schemas.openxmlformats.org/drawingml/2006/picture"><pic:pic>` +
		`<pic:nvPicPr><pic:cNvPr id="0" name="C:\pictures\file.png" descr="C:\pictures\file.png"/></pic:nvPicPr>` +
		`<pic:blipFill><a:blip r:embed="` + rel + `"/></pic:blipFill></pic:pic></a:graphicData></a:graphic></wp:inline></w:drawing>`
}

// imgDOCX builds a DOCX around body, with the media parts (under word/)
// and the document's relationships; its styles name "Beschriftung" as the
// Caption style, as a German Word does.
func imgDOCX(t *testing.T, body string, media map[string][]byte, rels string) []byte {
	parts := map[string][]byte{
		"word/document.xml":            []byte(imgDocxHead + body + `</w:body></w:document>`),
		"word/_rels/document.xml.rels": []byte(rels),
		"word/styles.xml": []byte(`<w:styles xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main">` +
			`<w:style w:type="paragraph" w:styleId="Beschriftung"><w:name w:val="caption"/></w:style></w:styles>`),
	}
	for name, b := range media {
		parts["word/"+name] = b
	}
	return imgZip(t, parts)
}

func imgZip(t *testing.T, parts map[string][]byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for name, b := range parts {
		w, err := zw.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write(b); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func imgTestPicture(w, h int) image.Image {
	m := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			m.Set(x, y, color.RGBA{uint8(x * 4), uint8(y * 4), 128, 255})
		}
	}
	return m
}

func imgPNG(t *testing.T, w, h int) []byte {
	var b bytes.Buffer
	if err := png.Encode(&b, imgTestPicture(w, h)); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func imgGIF(t *testing.T, w, h int) []byte {
	var b bytes.Buffer
	if err := gif.Encode(&b, imgTestPicture(w, h), nil); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func imgJPEG(t *testing.T, w, h int) []byte {
	var b bytes.Buffer
	if err := jpeg.Encode(&b, imgTestPicture(w, h), nil); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}
