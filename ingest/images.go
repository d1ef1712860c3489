package ingest

import (
	"bytes"
	"context"
	"encoding/binary"
	"image"
	"image/gif"
	"image/jpeg"
	"image/png"
	"path"
	"regexp"
	"strings"
	"unicode/utf8"

	"golang.org/x/image/bmp"
	"golang.org/x/image/tiff"
	"golang.org/x/image/webp"

	"ragd"
)

// Image is a picture found in a document.
type Image struct {
	Index    int    // 0-based order in the document
	Page     int    // 1-based page for PDF, 0 for DOCX
	Position int    // DOCX: index of the block (as Parse numbers them) the picture sits in or precedes; PDF: 0-based drawing order among the page's images
	Format   string // "png", "jpeg", "gif", "bmp", "tiff", "webp", "jp2", "emf", "wmf", "svg", … ("" if unknown)
	// Width and Height are the pixel size when cheaply known (from the
	// image header), else 0.
	Width, Height int
	// Caption is the picture's caption: for DOCX the adjacent paragraph
	// styled Caption or starting "Figure N"/"Fig. N"/"Table N", else the alt
	// text; for PDF the nearest line on the page starting "Figure N"/"Fig. N"
	// (with the lines that continue it).
	Caption string
	// Alt is the picture's alternative text (DOCX wp:docPr descr, else its
	// title; VML alt), "" when there is none or for PDF.
	Alt string
	// Nearby is up to about NearbyChars characters of the text around the
	// picture: the paragraphs before and after it (DOCX), the lines closest
	// to it on its page (PDF).
	Nearby string
	// Data is the image file: a DOCX media part as stored; for PDF the
	// JPEG/JPEG 2000 stream as stored, other image streams re-encoded as PNG
	// (TIFF for CCITT fax) by pdfcpu, since a raw PDF pixel stream is no
	// image file.
	Data []byte
}

// MIMEType returns the media type of the image data, "" if unknown.
func (img Image) MIMEType() string { return ImageMIMEType(img.Format) }

// Limits of ExtractImages.
const (
	MaxDocumentImages     = 200      // images returned per document
	MaxDocumentImageBytes = 20 << 20 // bytes of image data per document
	MinImageSide          = 32       // smaller pictures (icons, bullets, rules) are skipped
	NearbyChars           = 300      // length of Image.Nearby
	maxCaptionChars       = 300
)

// ExtractImages returns the images of a PDF or DOCX document in document
// order (nil for other types). It fails only when the container is corrupt
// (a *ParseError without Source: the caller knows the name); an image it
// cannot decode is skipped. At most MaxDocumentImages images and
// MaxDocumentImageBytes bytes of image data are returned; pictures smaller
// than MinImageSide pixels on a side, when their size is known, are skipped.
func ExtractImages(data []byte, typ ragd.SourceType) (imgs []Image, err error) {
	defer func() {
		if r := recover(); r != nil {
			imgs, err = nil, parseErr("", typ, "malformed %s: %s", formatName(typ), panicText(r))
		}
	}()
	switch typ {
	case ragd.SourcePDF:
		var l *Loaded
		if l, err = sandboxPDF(context.Background(), data, "", Limits{}.withDefaults(), sandboxAsk{Images: true}); l != nil {
			imgs, err = l.Images, l.ImagesErr
		}
	case ragd.SourceDOCX:
		imgs, err = extractDOCXImages(data)
	}
	for i := range imgs {
		imgs[i].Caption, imgs[i].Nearby = foldLigatures(imgs[i].Caption), foldLigatures(imgs[i].Nearby)
	}
	return imgs, err
}

// imageSink applies the limits while images are collected.
type imageSink struct {
	out   []Image
	bytes int
}

// full reports that no further image can be added.
func (s *imageSink) full() bool {
	return len(s.out) >= MaxDocumentImages || s.bytes >= MaxDocumentImageBytes
}

// room is how many more bytes of image data fit.
func (s *imageSink) room() int { return MaxDocumentImageBytes - s.bytes }

// accept fills in the format and size of img and reports whether it passes
// the limits; it does not add it. shared means img.Data was already counted
// (the same DOCX media part placed twice).
func (s *imageSink) accept(img *Image, name string, shared bool) bool {
	if s.full() || len(img.Data) == 0 {
		return false
	}
	if !shared && len(img.Data) > s.room() {
		return false
	}
	if img.Format == "" {
		img.Format = DetectImageFormat(img.Data, name)
	}
	if w, h := ImageSize(img.Data, img.Format); w > 0 && h > 0 {
		img.Width, img.Height = w, h
	}
	return !imgTooSmall(img.Width, img.Height)
}

func (s *imageSink) add(img Image, shared bool) {
	img.Index = len(s.out)
	if !shared {
		s.bytes += len(img.Data)
	}
	s.out = append(s.out, img)
}

// imgTooSmall reports a known size under MinImageSide on either side.
func imgTooSmall(w, h int) bool {
	return w > 0 && h > 0 && (w < MinImageSide || h < MinImageSide)
}

// DetectImageFormat names the format of an image from its magic bytes,
// falling back to the extension of name ("image1.jpg" → "jpeg").
func DetectImageFormat(data []byte, name string) string {
	switch {
	case bytes.HasPrefix(data, []byte("\x89PNG\r\n\x1a\n")):
		return "png"
	case bytes.HasPrefix(data, []byte{0xFF, 0xD8, 0xFF}):
		return "jpeg"
	case bytes.HasPrefix(data, []byte("GIF87a")), bytes.HasPrefix(data, []byte("GIF89a")):
		return "gif"
	case bytes.HasPrefix(data, []byte("II*\x00")), bytes.HasPrefix(data, []byte("MM\x00*")):
		return "tiff"
	case len(data) >= 12 && bytes.HasPrefix(data, []byte("RIFF")) && string(data[8:12]) == "WEBP":
		return "webp"
	case bytes.HasPrefix(data, []byte("\x00\x00\x00\x0CjP  \r\n\x87\n")), bytes.HasPrefix(data, []byte{0xFF, 0x4F, 0xFF, 0x51}):
		return "jp2"
	case bytes.HasPrefix(data, []byte("BM")) && len(data) >= 26:
		return "bmp"
	case len(data) >= 44 && binary.LittleEndian.Uint32(data) == 1 && string(data[40:44]) == " EMF":
		return "emf"
	case bytes.HasPrefix(data, []byte{0xD7, 0xCD, 0xC6, 0x9A}),
		bytes.HasPrefix(data, []byte{0x01, 0x00, 0x09, 0x00}), bytes.HasPrefix(data, []byte{0x02, 0x00, 0x09, 0x00}):
		return "wmf"
	}
	head := data[:min(len(data), 512)]
	if bytes.Contains(head, []byte("<svg")) {
		return "svg"
	}
	ext := strings.ToLower(strings.TrimPrefix(path.Ext(name), "."))
	switch ext {
	case "jpg", "jpe", "jfif":
		return "jpeg"
	case "tif":
		return "tiff"
	case "jpx", "j2k", "jpf":
		return "jp2"
	}
	return ext
}

// ImageMIMEType maps a DetectImageFormat name to its media type, "" if
// unknown.
func ImageMIMEType(format string) string {
	switch format {
	case "png", "jpeg", "gif", "bmp", "tiff", "webp":
		return "image/" + format
	case "jp2":
		return "image/jp2"
	case "svg":
		return "image/svg+xml"
	case "emf", "wmf":
		return "image/" + format // registered as image/emf, image/wmf (RFC 7903)
	}
	return ""
}

// ImageSize returns the pixel size recorded in the image's header, 0, 0 if
// it cannot be read cheaply. Vector formats report their bounds in device
// pixels (EMF) or at 96 dpi (placeable WMF).
func ImageSize(data []byte, format string) (w, h int) {
	var (
		cfg image.Config
		err error
		r   = bytes.NewReader(data)
	)
	switch format {
	case "png":
		cfg, err = png.DecodeConfig(r)
	case "jpeg":
		cfg, err = jpeg.DecodeConfig(r)
	case "gif":
		cfg, err = gif.DecodeConfig(r)
	case "bmp":
		cfg, err = bmp.DecodeConfig(r)
	case "tiff":
		cfg, err = tiff.DecodeConfig(r)
	case "webp":
		cfg, err = webp.DecodeConfig(r)
	case "emf":
		// EMR_HEADER: rclBounds (inclusive device units) at offset 8
		if len(data) >= 24 {
			b := func(o int) int { return int(int32(binary.LittleEndian.Uint32(data[o:]))) }
			w, h = b(16)-b(8)+1, b(20)-b(12)+1
		}
		return max(w, 0), max(h, 0)
	case "wmf":
		// placeable header: bounding box and units per inch
		if len(data) >= 16 && bytes.HasPrefix(data, []byte{0xD7, 0xCD, 0xC6, 0x9A}) {
			b := func(o int) int { return int(int16(binary.LittleEndian.Uint16(data[o:]))) }
			if inch := int(binary.LittleEndian.Uint16(data[14:])); inch > 0 {
				w, h = (b(10)-b(6))*96/inch, (b(12)-b(8))*96/inch
			}
		}
		return max(w, 0), max(h, 0)
	default:
		return 0, 0
	}
	if err != nil {
		return 0, 0
	}
	return cfg.Width, cfg.Height
}

// imgCaptionStart matches the label that opens a caption: "Figure 3",
// "Fig. 2.1:", "FIGURE 4 Results", "Table 1 – Sizes", but not body text
// such as "Figure 3 shows" or "Figure 1.2, 1.3 and".
var imgCaptionStart = regexp.MustCompile(`^(?i:figure|fig\.?|table)\s*` + captionNumber)

// imgFigureStart is imgCaptionStart for PDF, where "Table N" heads a table,
// not a picture.
var imgFigureStart = regexp.MustCompile(`^(?i:figure|fig\.?)\s*` + captionNumber)

// captionNumber is a figure number ("2", "1.3", "4-2", "2a") followed by
// punctuation, a capitalized word or the end of the line.
const captionNumber = `[0-9]+(?:[.\-][0-9]+)*[a-z]?(?:\s*[.:|—–-](?:$|[^0-9])|\s+[\p{Lu}\p{N}("“\[]|\s*$)`

// imgClip shortens s to at most n bytes at a word boundary, adding "…".
func imgClip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	if i := strings.LastIndexByte(s[:n], ' '); i > n/2 {
		cut = i
	}
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return strings.TrimSpace(s[:cut]) + "…"
}

// imgClipTail keeps the last n bytes of s, starting at a word boundary.
func imgClipTail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := len(s) - n
	if i := strings.IndexByte(s[cut:], ' '); i >= 0 && i < n/2 {
		cut += i + 1
	}
	for cut < len(s) && !utf8.RuneStart(s[cut]) {
		cut++
	}
	return "…" + strings.TrimSpace(s[cut:])
}

// imgOneLine collapses all whitespace runs to single spaces.
func imgOneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
