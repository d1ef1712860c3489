package document

import (
	"bytes"
	"encoding/binary"
	"image"
	"image/gif"
	"image/jpeg"
	"image/png"
	"path"
	"strings"

	"golang.org/x/image/bmp"
	"golang.org/x/image/tiff"
	"golang.org/x/image/webp"
)

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
