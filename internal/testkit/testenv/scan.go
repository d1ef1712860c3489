package testenv

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/jpeg"
	"os/exec"
	"strconv"
	"testing"

	"golang.org/x/image/font"
	"golang.org/x/image/font/gofont/goregular"
	"golang.org/x/image/font/opentype"
	"golang.org/x/image/math/fixed"
)

// RequireOCR fails the test when tesseract or pdftoppm is missing, rather
// than letting an OCR test pass without having read anything; with -short
// it is skipped instead.
func RequireOCR(t testing.TB) {
	t.Helper()
	for bin, pkg := range map[string]string{"tesseract": "tesseract-ocr", "pdftoppm": "poppler-utils"} {
		if _, err := exec.LookPath(bin); err != nil {
			if testing.Short() {
				t.Skipf("%s not installed (-short): skipping an OCR test", bin)
			}
			t.Fatalf("%s is not on PATH: run the tests with `make test`, which installs tesseract-ocr, tesseract-ocr-eng and poppler-utils (here: Debian's %s)", bin, pkg)
		}
	}
}

// ScanPage is one page of ScannedPDF: a scan of Lines (an image and no
// text layer), or of the picture JPEG, or, when Text is set, an ordinary
// page whose text layer says Text.
type ScanPage struct {
	Lines []string
	JPEG  []byte
	Text  string
	// Width and Height are the page's size in points, Letter when 0.
	Width, Height int
}

// Scan resolution of the pages ScannedPDF draws: 8.5 × 11 in at 200 dpi,
// 12 pt text.
const (
	scanDPI         = 200
	scanW, scanH    = 1700, 2200
	scanPoints      = 12
	scanMargin      = 200
	scanLineSpacing = 60
	scanPageW       = 612
	scanPageH       = 792
)

// ScannedPDF is a PDF of the pages, each scan one JPEG image XObject drawn
// over the whole page, as a flatbed scanner writes it.
func ScannedPDF(t testing.TB, pages ...ScanPage) []byte {
	t.Helper()
	objs := []string{"<< /Type /Catalog /Pages 2 0 R >>", "", "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"}
	var kids bytes.Buffer
	for _, p := range pages {
		page := len(objs) + 1
		if p.Width == 0 || p.Height == 0 {
			p.Width, p.Height = scanPageW, scanPageH
		}
		fmt.Fprintf(&kids, "%d 0 R ", page)
		if p.Text != "" {
			objs = append(objs, fmt.Sprintf("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 %d %d] /Resources << /Font << /F1 3 0 R >> >> /Contents %d 0 R >>", p.Width, p.Height, page+1),
				TextStream("BT /F1 12 Tf 72 720 Td ("+p.Text+") Tj ET"))
			continue
		}
		pic := p.JPEG
		if pic == nil {
			pic = ScanImage(t, p.Lines)
		}
		cfg, err := jpeg.DecodeConfig(bytes.NewReader(pic))
		if err != nil {
			t.Fatalf("scan image: %v", err)
		}
		space := "/DeviceRGB"
		if cfg.ColorModel == color.GrayModel {
			space = "/DeviceGray"
		}
		objs = append(objs,
			fmt.Sprintf("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 %d %d] /Resources << /XObject << /Im1 %d 0 R >> >> /Contents %d 0 R >>", p.Width, p.Height, page+2, page+1),
			TextStream(fmt.Sprintf("q %d 0 0 %d 0 0 cm /Im1 Do Q", p.Width, p.Height)),
			"<< /Type /XObject /Subtype /Image /Width "+strconv.Itoa(cfg.Width)+" /Height "+strconv.Itoa(cfg.Height)+
				" /ColorSpace "+space+" /BitsPerComponent 8 /Filter /DCTDecode /Length "+strconv.Itoa(len(pic))+" >>\nstream\n"+string(pic)+"\nendstream")
	}
	objs[1] = fmt.Sprintf("<< /Type /Pages /Kids [%s] /Count %d >>", bytes.TrimSpace(kids.Bytes()), len(pages))
	return PDFOf(objs)
}

// ScanImage draws lines in 12 pt Go Regular on a white Letter page at
// 200 dpi and encodes it as a grey JPEG, a scanner's output.
func ScanImage(t testing.TB, lines []string) []byte {
	t.Helper()
	img := image.NewGray(image.Rect(0, 0, scanW, scanH))
	draw.Draw(img, img.Bounds(), image.White, image.Point{}, draw.Src)
	f, err := opentype.Parse(goregular.TTF)
	if err != nil {
		t.Fatal(err)
	}
	face, err := opentype.NewFace(f, &opentype.FaceOptions{Size: scanPoints, DPI: scanDPI, Hinting: font.HintingFull})
	if err != nil {
		t.Fatal(err)
	}
	d := &font.Drawer{Dst: img, Src: image.Black, Face: face}
	for i, ln := range lines {
		d.Dot = fixed.P(scanMargin, scanMargin+(i+1)*scanLineSpacing)
		d.DrawString(ln)
	}
	var b bytes.Buffer
	if err := jpeg.Encode(&b, img, &jpeg.Options{Quality: 90}); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}
