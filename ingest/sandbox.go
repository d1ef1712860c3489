package ingest

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
}

// sandboxText is the child's first reply frame when Text was asked.
type sandboxText struct {
	Title  string
	Blocks []Block
	Err    string // the parse error's reason, "" on success
}

// sandboxImages is the child's reply frame when Images was asked.
type sandboxImages struct {
	Images []Image
	Err    string
}

// sandboxPDF parses a PDF in a child process within lim. With text, the
// result is the document (a text failure is the error); images go into
// Loaded.Images, or Loaded.ImagesErr when they could not be read — also
// when the child dies after the text was sent.
func sandboxPDF(ctx context.Context, data []byte, name string, lim Limits, text, images bool) (*Loaded, error) {
	exe, err := sandboxExecutable()
	if err != nil {
		return nil, fmt.Errorf("PDF parser: cannot find the executable to run: %w", err)
	}
	var in bytes.Buffer
	req := sandboxRequest{Name: name, Data: data, MaxPages: lim.MaxPages, MemoryBytes: lim.MemoryBytes,
		Timeout: lim.Timeout, Text: text, Images: images}
	if err := gob.NewEncoder(&in).Encode(req); err != nil {
		return nil, fmt.Errorf("PDF parser: encode request: %w", err)
	}
	pctx, cancel := context.WithTimeout(ctx, lim.Timeout)
	defer cancel()
	cmd := exec.CommandContext(pctx, exe)
	cmd.Args = []string{"ragd-pdf-parser"} // what ps shows for the child
	cmd.Env = append(os.Environ(), sandboxEnv+"="+sandboxPDFMode, "GOMAXPROCS=1")
	if raceEnabled {
		// the race runtime sleeps a second at exit by default
		cmd.Env = append(cmd.Env, "GORACE=atexit_sleep_ms=0 "+os.Getenv("GORACE"))
	}
	cmd.Stdin = &in
	stderr := &cappedBuffer{max: maxStderr}
	cmd.Stderr = stderr
	cmd.SysProcAttr = sandboxProcAttr()
	cmd.WaitDelay = time.Second
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("PDF parser: %w", err)
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("PDF parser: start %s: %w", exe, err)
	}
	l, textErr, imagesErr := readSandboxReply(io.LimitReader(out, lim.MemoryBytes), text, images)
	_, _ = io.Copy(io.Discard, out) // let the child finish writing
	waitErr := cmd.Wait()
	if textErr == nil && imagesErr == nil {
		return l, nil
	}
	// The reply stopped short: say why, from how the child ended.
	died := sandboxFailure(ctx, pctx, waitErr, stderr.String(), lim)
	if ctx.Err() != nil {
		return nil, ctx.Err() // the job was cancelled or timed out: not the file's fault
	}
	if textErr != nil {
		if errors.Is(textErr, errNoFrame) {
			textErr = died
		}
		return nil, &ParseError{Source: name, Type: ragd.SourcePDF, Err: textErr}
	}
	if errors.Is(imagesErr, errNoFrame) {
		imagesErr = died
	}
	l.ImagesErr = &ParseError{Type: ragd.SourcePDF, Err: imagesErr}
	return l, nil
}

// errNoFrame marks a reply frame the child never sent.
var errNoFrame = errors.New("no reply")

// readSandboxReply decodes the frames asked for. A frame the child sent
// with an error gives that error; one it did not send gives errNoFrame.
func readSandboxReply(r io.Reader, text, images bool) (l *Loaded, textErr, imagesErr error) {
	dec := gob.NewDecoder(r)
	l = &Loaded{}
	if text {
		var t sandboxText
		if err := dec.Decode(&t); err != nil {
			return nil, errNoFrame, nil
		}
		if t.Err != "" {
			return nil, errors.New(t.Err), nil
		}
		l.Title, l.Blocks = t.Title, t.Blocks
	}
	if images {
		var im sandboxImages
		if err := dec.Decode(&im); err != nil {
			return l, nil, errNoFrame
		}
		if im.Err != "" {
			return l, nil, errors.New(im.Err)
		}
		l.Images = im.Images
	}
	return l, nil, nil
}

// sandboxFailure explains why the child stopped before replying.
func sandboxFailure(ctx, pctx context.Context, waitErr error, stderr string, lim Limits) error {
	var exit *exec.ExitError
	switch {
	case ctx.Err() != nil:
		return ctx.Err()
	case errors.Is(pctx.Err(), context.DeadlineExceeded):
		return fmt.Errorf("parsing took longer than ingest.parse_timeout (%s); the file may be hostile or too complex", lim.Timeout)
	case errors.As(waitErr, &exit) && (exit.ExitCode() == exitOverBudget || strings.Contains(stderr, "out of memory")):
		return fmt.Errorf("parsing needed more than ingest.parse_memory_bytes (%d MiB); the file may be hostile or too large", lim.MemoryBytes>>20)
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
			return panicText(ln)
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
