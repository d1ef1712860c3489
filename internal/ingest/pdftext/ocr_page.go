package pdftext

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/ledongthuc/pdf"

	"ragd/internal/ingest/document"
)

// Bounds of the OCR of one page.
const (
	// ocrDPI is the resolution pages are rendered at: tesseract reads
	// body text best at about 300 dpi.
	ocrDPI = 300
	// maxOCRPixels bounds the longer side of a rendered page: a page that
	// claims to be metres wide is rendered at a lower resolution, and
	// pdftoppm's crop box (-W, -H) caps the bitmap whatever it claims.
	maxOCRPixels = 5000
	maxOCRImage  = maxOCRPixels*maxOCRPixels + 64 // an 8-bit PGM and its header
	maxOCRText   = 1 << 20                        // tesseract's text for one page
	maxToolErr   = 4 << 10
)

// scannedPage is a page without a text layer and its size in points.
type scannedPage struct {
	nr   int
	w, h float64
}

// pageOCR reads the scanned pages of one PDF. It runs inside the parse
// sandbox: pdftoppm and tesseract read the same hostile file, so they
// inherit the sandbox's memory and CPU limits and die with it (its
// process group is killed at the parse deadline).
type pageOCR struct {
	ctx   context.Context
	tools ocrTools
	langs string
	data  []byte // the PDF, for pdftoppm
	// progress hears pages done of total, after each page.
	progress func(done, total int)
}

// read OCRs pages in order and returns each page's blocks.
func (o *pageOCR) read(pages []scannedPage) (map[int][]document.Block, error) {
	out := make(map[int][]document.Block, len(pages))
	o.progress(0, len(pages))
	for i, p := range pages {
		blocks, err := o.page(p)
		if err != nil {
			return nil, fmt.Errorf("OCR of page %d: %w", p.nr, err)
		}
		out[p.nr] = blocks
		o.progress(i+1, len(pages))
	}
	return out, nil
}

// page renders one page to a grey PGM on a pipe and reads it.
func (o *pageOCR) page(p scannedPage) ([]document.Block, error) {
	nr, dpi := strconv.Itoa(p.nr), strconv.Itoa(ocrResolution(p.w, p.h))
	side := strconv.Itoa(maxOCRPixels)
	img, err := o.run(o.tools.pdftoppm, []string{"-f", nr, "-l", nr, "-r", dpi, "-gray",
		"-x", "0", "-y", "0", "-W", side, "-H", side, "-"}, o.data, maxOCRImage)
	if err != nil {
		return nil, err
	}
	text, err := o.run(o.tools.tesseract, []string{"stdin", "stdout", "-l", o.langs, "--dpi", dpi}, img, maxOCRText)
	if err != nil {
		return nil, err
	}
	return ocrBlocks(string(text), p.nr), nil
}

// pipeDrain is how long, once an OCR program has exited (or been killed),
// its pipes may take to drain: the copy of its stdin and out of its stdout
// run in goroutines of ours, which a loaded machine may not schedule within
// a second (a page failed so under the race detector with the suite's
// tests in parallel).
const pipeDrain = 10 * time.Second

// run runs one program of the OCR on stdin within the context and returns
// its output, an error once it writes more than maxOut bytes.
func (o *pageOCR) run(path string, args []string, stdin []byte, maxOut int) ([]byte, error) {
	cmd := exec.CommandContext(o.ctx, path, args...)
	cmd.Env = toolEnv()
	cmd.Stdin = bytes.NewReader(stdin)
	out := &boundedBuffer{max: maxOut}
	stderr := &cappedBuffer{max: maxToolErr}
	cmd.Stdout, cmd.Stderr = out, stderr
	cmd.SysProcAttr = toolProcAttr()
	cmd.WaitDelay = pipeDrain
	err := cmd.Run()
	name := filepath.Base(path)
	switch {
	case o.ctx.Err() != nil:
		return nil, o.ctx.Err()
	case out.over:
		return nil, fmt.Errorf("%s wrote more than %d bytes", name, maxOut)
	case err != nil && strings.Contains(stderr.String(), "Failed loading language"):
		return nil, fmt.Errorf("tesseract lacks ingest.ocr_languages %q: install Debian's tesseract-ocr-<code> for each", o.langs)
	case err != nil:
		return nil, fmt.Errorf("%s failed (%v): %s", name, err, firstLine(stderr.String()))
	}
	return out.buf.Bytes(), nil
}

// toolEnv is the OCR programs' environment: ragd's, without the sandbox
// marker, and with tesseract on one thread (workers parse several
// documents at once; its OpenMP threads would only contend).
func toolEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, sandboxEnv+"=") {
			env = append(env, kv)
		}
	}
	return append(env, "OMP_THREAD_LIMIT=1")
}

// ocrResolution is ocrDPI, lowered so that the page's longer side stays
// within maxOCRPixels.
func ocrResolution(w, h float64) int {
	long := max(w, h)
	if !(long > 0) || math.IsInf(long, 0) {
		long = 792
	}
	return max(1, min(ocrDPI, int(maxOCRPixels*72/long)))
}

// pageSize is the page's media box in points, inherited from the page
// tree when the page has none; US Letter when there is none at all.
func pageSize(p pdf.Page) (w, h float64) {
	v := p.V
	for i := 0; i < maxPageTreeDepth && !v.IsNull(); i++ {
		if box := v.Key("MediaBox"); box.Len() == 4 {
			return math.Abs(box.Index(2).Float64() - box.Index(0).Float64()), math.Abs(box.Index(3).Float64() - box.Index(1).Float64())
		}
		v = v.Key("Parent")
	}
	return 612, 792
}

// ocrBlocks turns tesseract's text into paragraphs: it separates
// paragraphs by blank lines and ends the page with a form feed.
func ocrBlocks(text string, page int) []document.Block {
	lines := strings.Split(strings.ReplaceAll(text, "\f", "\n"), "\n")
	pl := make([]pdfLine, len(lines))
	for i, ln := range lines {
		pl[i] = pdfLine{text: ln, y: -float64(i)}
	}
	blocks := pageParagraphs(pl, page)
	for i := range blocks {
		blocks[i].OCR = true
	}
	return blocks
}

// hasText reports whether blocks hold a letter or digit: a page whose
// text layer holds none is a scanned page.
func hasText(blocks []document.Block) bool {
	for _, b := range blocks {
		if strings.IndexFunc(b.Text, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsNumber(r) }) >= 0 {
			return true
		}
	}
	return false
}

// errOutputTooLarge stops a program that writes more than allowed.
var errOutputTooLarge = errors.New("output too large")

// boundedBuffer keeps up to max bytes and fails the write that would pass
// it, so the program's output pipe breaks and it stops.
type boundedBuffer struct {
	buf  bytes.Buffer
	max  int
	over bool
}

func (b *boundedBuffer) Write(p []byte) (int, error) {
	if b.buf.Len()+len(p) > b.max {
		b.over = true
		return 0, errOutputTooLarge
	}
	return b.buf.Write(p)
}
