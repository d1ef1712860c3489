package document

import (
	"testing"

	"ragd/internal/testkit/testenv"
)

const imgFitzModule = "github.com/gen2brain/go-fitz@v1.24.15"

// TestDetectImageFormatRealFiles reads the one-pixel sample images of
// go-fitz in every format it ships.
func TestDetectImageFormatRealFiles(t *testing.T) {
	for _, tc := range []struct {
		file, format string
		sized        bool
	}{
		{"test.png", "png", true},
		{"test.jpg", "jpeg", true},
		{"test.gif", "gif", true},
		{"test.bmp", "bmp", true},
		{"test.tif", "tiff", true},
		{"test.jp2", "jp2", false},
		{"test.svg", "svg", false},
	} {
		data := testenv.ReadFile(t, testenv.ModuleFile(t, imgFitzModule, "testdata/"+tc.file))
		// the magic bytes decide, not the name
		if got := DetectImageFormat(data, "picture.bin"); got != tc.format {
			t.Errorf("%s: format %q, want %q", tc.file, got, tc.format)
		}
		w, h := ImageSize(data, tc.format)
		if tc.sized && (w != 1 || h != 1) {
			t.Errorf("%s: size %dx%d, want 1x1", tc.file, w, h)
		}
		if !tc.sized && (w != 0 || h != 0) {
			t.Errorf("%s: size %dx%d, want unknown", tc.file, w, h)
		}
		if ImageMIMEType(tc.format) == "" {
			t.Errorf("%s: no MIME type for %q", tc.file, tc.format)
		}
	}
	// unknown bytes fall back to the extension
	for name, want := range map[string]string{"media/image3.JPG": "jpeg", "x.tif": "tiff", "x.emf": "emf", "noext": ""} {
		if got := DetectImageFormat([]byte("not an image"), name); got != want {
			t.Errorf("DetectImageFormat(%q) = %q, want %q", name, got, want)
		}
	}
}

func TestCaptionLabel(t *testing.T) {
	for s, want := range map[string]bool{
		"Figure 1: The ingest pipeline":      true,
		"Figure 1.1. Four Lissajous figures": true,
		"Fig. 3 Rise in temperature":         true,
		"Fig.1.Fall in colonic temperature":  true,
		"FIGURE 2 – Distribution":            true,
		"Figure 4":                           true,
		"Figure 2a: detail":                  true,
		"Table 2: Sizes":                     true,
		"Figure 1.1 shows some examples":     false,
		"Figure 3 shows nothing.":            false,
		"Figure 2/T.6, 3/T.6 and 4/T.6.":     false,
		"Figures are drawn":                  false,
		"Configure 3 workers":                false,
	} {
		if got := CaptionStart.MatchString(s); got != want {
			t.Errorf("caption label %q: %v, want %v", s, got, want)
		}
	}
	if FigureStart.MatchString("Table 2: Sizes") {
		t.Error("a PDF table heading taken for a figure caption")
	}
}

func TestClip(t *testing.T) {
	s := "alpha beta gamma delta epsilon"
	if got := Clip(s, 17); got != "alpha beta gamma…" {
		t.Errorf("Clip = %q", got)
	}
	if got := ClipTail(s, 14); got != "…delta epsilon" {
		t.Errorf("ClipTail = %q", got)
	}
	if got := Clip("ééééé", 3); got != "é…" {
		t.Errorf("Clip cut a rune: %q", got)
	}
}
