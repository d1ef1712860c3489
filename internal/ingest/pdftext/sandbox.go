package pdftext

import (
	"bytes"
	"context"
	"encoding/gob"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"time"

	"ragd"
	"ragd/internal/ingest/document"
)

// The PDF libraries ragd uses can loop for ever or allocate without bound
// on a hostile file (a /Kids cycle, a decompression bomb), and a goroutine
// that never checks its context cannot be stopped. So PDFs are parsed in a
// child process: the running binary itself, re-executed with sandboxEnv
// set, which init (sandbox_child.go) turns into the parser. The parent
// kills it at the deadline; it caps its own memory.

const (
	sandboxEnv     = "RAGD_INGEST_SANDBOX"
	sandboxPDFMode = "pdf"
	// exitOverBudget is the child's exit status when its memory watchdog
	// fires.
	exitOverBudget = 86
	maxStderr      = 16 << 10
)

// sandboxRequest is what the parent sends the child on stdin.
type sandboxRequest struct {
	Name        string
	Data        []byte
	MaxPages    int
	MemoryBytes int64
	Timeout     time.Duration
	Text        bool // parse the text (frame sandboxText)
	Images      bool // extract the pictures (frame sandboxImages, after the text)
	OCR         OCR  // how to read pages without a text layer
}

// sandboxText is the child's first reply frame when Text was asked. While
// OCR reads scanned pages, frames with Progress set come before it.
type sandboxText struct {
	Title    string
	Blocks   []document.Block
	OCRPages int    // pages read by OCR
	Err      string // the parse error's reason, "" on success
	Progress *ocrProgress
}

// ocrProgress is OCR's pages done of total.
type ocrProgress struct{ Done, Total int }

// sandboxImages is the child's reply frame when Images was asked.
type sandboxImages struct {
	Images []document.Image
	Err    string
}

// sandboxAsk is what a sandboxed parse is asked for.
type sandboxAsk struct {
	Text, Images bool
	OCR          OCR
	// Progress, when set, hears OCR's pages done of total.
	Progress func(done, total int)
}

// sandboxPDF parses a PDF in a child process within lim. With text, the
// result is the document (a text failure is the error); images go into
// document.Loaded.Images, or document.Loaded.ImagesErr when they could not be read — also
// when the child dies after the text was sent.
func sandboxPDF(ctx context.Context, data []byte, name string, lim Limits, ask sandboxAsk) (*document.Loaded, error) {
	var in bytes.Buffer
	req := sandboxRequest{Name: name, Data: data, MaxPages: lim.MaxPages, MemoryBytes: lim.MemoryBytes,
		Timeout: lim.Timeout, Text: ask.Text, Images: ask.Images, OCR: ask.OCR}
	if err := gob.NewEncoder(&in).Encode(req); err != nil {
		return nil, fmt.Errorf("PDF parser: encode request: %w", err)
	}
	pctx, cancel := context.WithTimeout(ctx, lim.Timeout)
	defer cancel()
	cmd, err := sandboxCommand(pctx, &in)
	if err != nil {
		return nil, err
	}
	stderr := &cappedBuffer{max: maxStderr}
	cmd.Stderr = stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("PDF parser: %w", err)
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("PDF parser: start %s: %w", cmd.Path, err)
	}
	rep := readSandboxReply(io.LimitReader(out, lim.MemoryBytes), ask)
	_, _ = io.Copy(io.Discard, out) // let the child finish writing
	waitErr := cmd.Wait()
	if rep.textErr == nil && rep.imagesErr == nil {
		return rep.l, nil
	}
	// The reply stopped short: say why, from how the child ended.
	died := sandboxFailure(ctx, pctx, waitErr, stderr.String(), lim, rep.ocrNote())
	if ctx.Err() != nil {
		return nil, ctx.Err() // the job was cancelled or timed out: not the file's fault
	}
	if rep.textErr != nil {
		if errors.Is(rep.textErr, errNoFrame) {
			rep.textErr = died
		}
		return nil, &document.ParseError{Source: name, Type: ragd.SourcePDF, Err: rep.textErr}
	}
	if errors.Is(rep.imagesErr, errNoFrame) {
		rep.imagesErr = died
	}
	rep.l.ImagesErr = &document.ParseError{Type: ragd.SourcePDF, Err: rep.imagesErr}
	return rep.l, nil
}

// sandboxCommand is the child process reading the request from stdin,
// killed with its process group when pctx ends.
func sandboxCommand(pctx context.Context, stdin io.Reader) (*exec.Cmd, error) {
	exe, err := sandboxExecutable()
	if err != nil {
		return nil, fmt.Errorf("PDF parser: cannot find the executable to run: %w", err)
	}
	cmd := exec.CommandContext(pctx, exe)
	cmd.Args = []string{"ragd-pdf-parser"} // what ps shows for the child
	cmd.Env = append(os.Environ(), sandboxEnv+"="+sandboxPDFMode, "GOMAXPROCS=1")
	if raceEnabled {
		// the race runtime sleeps a second at exit by default
		cmd.Env = append(cmd.Env, "GORACE=atexit_sleep_ms=0 "+os.Getenv("GORACE"))
	}
	cmd.Stdin = stdin
	cmd.SysProcAttr = sandboxProcAttr()
	cmd.Cancel = sandboxKill(cmd)
	cmd.WaitDelay = time.Second
	return cmd, nil
}

// errNoFrame marks a reply frame the child never sent.
var errNoFrame = errors.New("no reply")

// sandboxReply is what the parent read of the child's reply.
type sandboxReply struct {
	l                  *document.Loaded
	textErr, imagesErr error
	ocr                ocrProgress // the last OCR progress heard
}

// ocrNote tells, for a parse that ran out of time, how far OCR had got.
func (r sandboxReply) ocrNote() string {
	if r.ocr.Total == 0 {
		return ""
	}
	return fmt.Sprintf(" (OCR had read %d of %d scanned pages; raise ingest.parse_timeout for long scans)", r.ocr.Done, r.ocr.Total)
}

// readSandboxReply decodes the frames asked for. A frame the child sent
// with an error gives that error; one it did not send gives errNoFrame.
func readSandboxReply(r io.Reader, ask sandboxAsk) (rep sandboxReply) {
	dec := gob.NewDecoder(r)
	rep.l = &document.Loaded{}
	if ask.Text {
		var t sandboxText
		for {
			t = sandboxText{}
			if err := dec.Decode(&t); err != nil {
				return sandboxReply{textErr: errNoFrame, ocr: rep.ocr}
			}
			if t.Progress == nil {
				break
			}
			rep.ocr = *t.Progress
			if ask.Progress != nil {
				ask.Progress(t.Progress.Done, t.Progress.Total)
			}
		}
		if t.Err != "" {
			return sandboxReply{textErr: errors.New(t.Err), ocr: rep.ocr}
		}
		rep.l.Title, rep.l.Blocks, rep.l.OCRPages = t.Title, t.Blocks, t.OCRPages
	}
	if ask.Images {
		var im sandboxImages
		if err := dec.Decode(&im); err != nil {
			rep.imagesErr = errNoFrame
			return rep
		}
		if im.Err != "" {
			rep.imagesErr = errors.New(im.Err)
			return rep
		}
		rep.l.Images = im.Images
	}
	return rep
}

// sandboxFailure explains why the child stopped before replying.
// note, when set, follows the timeout's message.
func sandboxFailure(ctx, pctx context.Context, waitErr error, stderr string, lim Limits, note string) error {
	var exit *exec.ExitError
	switch {
	case ctx.Err() != nil:
		return ctx.Err()
	case errors.Is(pctx.Err(), context.DeadlineExceeded):
		return fmt.Errorf("parsing took longer than ingest.parse_timeout (%s)%s; the file may be hostile or too complex", lim.Timeout, note)
	case errors.As(waitErr, &exit) && (exit.ExitCode() == exitOverBudget || strings.Contains(stderr, "out of memory")):
		return fmt.Errorf("parsing needed more than ingest.parse_memory_bytes (%d MiB); the file may be hostile or too large", lim.MemoryBytes>>20)
	case waitErr != nil && strings.Contains(stderr, "stack overflow"):
		// the library recurses through references without bound; the
		// child's stack cap (capMemory) ends it
		return errors.New("the PDF's objects refer to themselves or nest too deeply to read (the parser ran out of stack); the file may be hostile or damaged")
	case waitErr != nil:
		return fmt.Errorf("the PDF parser failed (%v): %s", waitErr, firstLine(stderr))
	}
	return errors.New("the PDF parser ended without an answer")
}

// firstLine returns the first non-empty line of s, cut to 200 bytes and
// valid UTF-8 (it may quote file bytes).
func firstLine(s string) string {
	for _, ln := range strings.Split(s, "\n") {
		if ln = strings.TrimSpace(ln); ln != "" {
			return document.PanicText(ln)
		}
	}
	return "no message"
}

// cappedBuffer keeps the first max bytes written and drops the rest, so a
// child that floods stderr cannot grow the parent.
type cappedBuffer struct {
	buf bytes.Buffer
	max int
}

func (c *cappedBuffer) Write(p []byte) (int, error) {
	if room := c.max - c.buf.Len(); room > 0 {
		c.buf.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}

func (c *cappedBuffer) String() string { return c.buf.String() }
