package pdftext

import (
	"bytes"
	"image"
	_ "image/jpeg"
	_ "image/png"
	"strings"
	"testing"

	"ragd"
	"ragd/internal/ingest/document"
)

const pdfcpuModule = "github.com/pdfcpu/pdfcpu@v0.15.0"

// checkDecodes verifies the image data is a file of its format and size.
func checkDecodes(t *testing.T, i int, img document.Image) {
	t.Helper()
	cfg, format, err := image.DecodeConfig(bytes.NewReader(img.Data))
	if err != nil {
		t.Errorf("image %d: data does not decode: %v", i, err)
		return
	}
	if format != img.Format || cfg.Width != img.Width || cfg.Height != img.Height {
		t.Errorf("image %d: data is %s %dx%d, image says %s %dx%d", i, format, cfg.Width, cfg.Height, img.Format, img.Width, img.Height)
	}
}

// pdfcpu's testdata holds the first chapter of The Go Programming Language:
// the cover (a JPEG, and a PNG banner) on page 1, four Lissajous JPEGs side
// by side above "Figure 1.1" on page 32, a browser screenshot above
// "Figure 1.2" on page 39 and one above "Figure 1.3" on page 42.
func TestExtractImagesPDFFigures(t *testing.T) {
	data := readFixture(t, moduleFile(t, pdfcpuModule, "pkg/testdata/TheGoProgrammingLanguageCh1.pdf"))
	imgs, err := ExtractImages(data)
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		page, pos int
		format    string
		w, h      int
		caption   string
	}{
		{1, 0, "jpeg", 1250, 1800, ""},
		{1, 1, "png", 707, 125, ""},
		{32, 0, "jpeg", 140, 159, "Figure 1.1."},
		{32, 1, "jpeg", 140, 159, "Figure 1.1."},
		{32, 2, "jpeg", 140, 159, "Figure 1.1."},
		{32, 3, "jpeg", 140, 159, "Figure 1.1."},
		{39, 0, "jpeg", 571, 218, "Figure 1.2."},
		{42, 0, "jpeg", 462, 344, "Figure 1.3."},
	}
	if len(imgs) != len(want) {
		t.Fatalf("%d images, want %d", len(imgs), len(want))
	}
	for i, w := range want {
		img := imgs[i]
		if img.Index != i || img.Page != w.page || img.Position != w.pos || img.Format != w.format || img.Width != w.w || img.Height != w.h {
			t.Errorf("image %d: index %d page %d position %d %s %dx%d, want page %d position %d %s %dx%d",
				i, img.Index, img.Page, img.Position, img.Format, img.Width, img.Height, w.page, w.pos, w.format, w.w, w.h)
		}
		if (w.caption == "") != (img.Caption == "") || !strings.HasPrefix(img.Caption, w.caption) {
			t.Errorf("image %d: caption %q, want %q…", i, img.Caption, w.caption)
		}
		// the cover page has no text; the figures sit in running text
		if (w.page == 1) != (img.Nearby == "") || len(img.Nearby) > document.NearbyChars+10 {
			t.Errorf("image %d: nearby %q", i, img.Nearby)
		}
		if img.Nearby != "" && strings.Contains(img.Nearby, img.Caption) {
			t.Errorf("image %d: nearby repeats the caption: %q", i, img.Nearby)
		}
		checkDecodes(t, i, img)
	}
	if !strings.Contains(imgs[2].Caption, "Lissajous") || !strings.Contains(imgs[7].Caption, "Lissajous") {
		t.Errorf("captions lack their text: %q, %q", imgs[2].Caption, imgs[7].Caption)
	}
}

func TestExtractImagesPDFOthers(t *testing.T) {
	// The Little Go Book: an 84-page PDF whose only image is the grey
	// cover picture on page 1, re-encoded from a Flate stream as PNG.
	t.Run("cover", func(t *testing.T) {
		imgs, err := ExtractImages(readFixture(t, moduleFile(t, imgFitzModule, "testdata/test.pdf")))
		if err != nil || len(imgs) != 1 {
			t.Fatalf("%d images, %v; want 1", len(imgs), err)
		}
		if img := imgs[0]; img.Page != 1 || img.Format != "png" || img.Width != 436 || img.Height != 244 {
			t.Errorf("got page %d %s %dx%d", img.Page, img.Format, img.Width, img.Height)
		}
		checkDecodes(t, 0, imgs[0])
	})
	// A TCPDF table of contents repeating one JPEG logo in the header of
	// all 16 pages: one image, on page 1, next to the page's text.
	t.Run("header logo", func(t *testing.T) {
		imgs, err := ExtractImages(readFixture(t, moduleFile(t, pdfModule, "testdata/tableOfContentWithHeader_tcpdf-org__pdf17_trailer.pdf")))
		if err != nil || len(imgs) != 1 {
			t.Fatalf("%d images, %v; want 1", len(imgs), err)
		}
		img := imgs[0]
		if img.Page != 1 || img.Format != "jpeg" || img.Width != 354 || img.Height != 118 || img.Caption != "" {
			t.Errorf("got page %d %s %dx%d caption %q", img.Page, img.Format, img.Width, img.Height, img.Caption)
		}
		if !strings.Contains(img.Nearby, "Table Of Content") {
			t.Errorf("nearby %q", img.Nearby)
		}
		checkDecodes(t, 0, img)
	})
}

func TestExtractImagesPDFWithoutImages(t *testing.T) {
	for _, f := range []string{
		"testdata/story_Word2019-2312-1712620132_SaveAs-Standard-PDFA__pdf17_trailer.pdf",
		"testdata/story_freeconvert-com__pdf17_2trailer.pdf",
	} {
		imgs, err := ExtractImages(readFixture(t, moduleFile(t, pdfModule, f)))
		if err != nil || len(imgs) != 0 {
			t.Errorf("%s: %d images, %v; want none", f, len(imgs), err)
		}
	}
}

func TestExtractImagesPDFCorrupt(t *testing.T) {
	real := readFixture(t, moduleFile(t, pdfModule, "testdata/tableOfContentWithHeader_tcpdf-org__pdf17_trailer.pdf"))
	for name, data := range map[string][]byte{
		"empty":     nil,
		"not a PDF": []byte("this is plain text, not a PDF"),
		"header":    []byte("%PDF-1.7\n1 0 obj << /Type /Catalog"),
		"truncated": real[:len(real)/3],
	} {
		imgs, err := ExtractImages(data)
		imgWantParseError(t, name, imgs, err, ragd.SourcePDF)
	}
	// damage anywhere may lose images or the document, never panic
	for off := 0; off < len(real); off += len(real) / 23 {
		b := bytes.Clone(real)
		for i := off; i < off+256 && i < len(b); i++ {
			b[i] ^= 0xA5
		}
		if imgs, err := ExtractImages(b); err != nil && imgs != nil {
			t.Errorf("damage at %d: images with an error", off)
		}
	}
}
