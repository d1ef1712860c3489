package pdftext

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"time"
)

// OCR configures the reading of scanned PDF pages. A page without a text
// layer is rendered by poppler's pdftoppm and read by tesseract (Debian's
// poppler-utils and tesseract-ocr) when both are installed; without them a
// scanned page gives no text, and a PDF of scanned pages only fails with
// a message saying what to install.
type OCR struct {
	// Off turns OCR off even when the programs are installed.
	Off bool
	// Languages are tesseract's language codes joined by "+" (e.g.
	// "eng+deu"), each installed as Debian's tesseract-ocr-<code>; ""
	// means DefaultOCRLanguages.
	Languages string
}

// DefaultOCRLanguages is the language OCR reads unless told otherwise.
const DefaultOCRLanguages = "eng"

func (o OCR) languages() string {
	if o.Languages == "" {
		return DefaultOCRLanguages
	}
	return o.Languages
}

// ocrTools are the programs OCR runs, as found on PATH.
type ocrTools struct{ pdftoppm, tesseract string }

// installHint says how to get OCR's programs on Debian.
const installHint = "install Debian's tesseract-ocr, tesseract-ocr-eng and poppler-utils (make deps does)"

// findOCRTools finds pdftoppm and tesseract on PATH, or says which
// Debian package is missing.
func findOCRTools() (ocrTools, error) {
	var (
		t       ocrTools
		missing []string
		err     error
	)
	if t.tesseract, err = exec.LookPath("tesseract"); err != nil {
		missing = append(missing, "tesseract (Debian's tesseract-ocr)")
	}
	if t.pdftoppm, err = exec.LookPath("pdftoppm"); err != nil {
		missing = append(missing, "pdftoppm (Debian's poppler-utils)")
	}
	if len(missing) > 0 {
		return t, fmt.Errorf("%s not installed: %s", strings.Join(missing, " and "), installHint)
	}
	return t, nil
}

// noTextReason is the error of a PDF without any text, saying whether OCR
// could have helped.
func noTextReason(o OCR) string {
	if o.Off {
		return "no extractable text (a scanned PDF needs OCR first; ingest.ocr is off)"
	}
	if _, err := findOCRTools(); err != nil {
		return "no extractable text (a scanned PDF needs OCR first: " + installHint + ")"
	}
	return "no extractable text"
}

// CheckOCR says why OCR will not read scanned pages as configured: its
// programs or one of its languages are not installed. It is nil when OCR
// is off or ready.
func CheckOCR(ctx context.Context, o OCR) error {
	if o.Off {
		return nil
	}
	tools, err := findOCRTools()
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	var out bytes.Buffer
	cmd := exec.CommandContext(ctx, tools.tesseract, "--list-langs")
	cmd.Stdout, cmd.Env = &out, toolEnv()
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("tesseract --list-langs: %w", err)
	}
	have := map[string]bool{}
	for _, ln := range strings.Split(out.String(), "\n") {
		have[strings.TrimSpace(ln)] = true
	}
	var missing []string
	for _, l := range strings.Split(o.languages(), "+") {
		if !have[l] {
			missing = append(missing, "tesseract-ocr-"+l)
		}
	}
	if len(missing) > 0 {
		return errors.New("tesseract lacks ingest.ocr_languages " + o.languages() + ": install Debian's " + strings.Join(missing, ", "))
	}
	return nil
}
