package pdftext

import (
	"context"
	"encoding/gob"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"runtime/metrics"
	"time"

	"ragd/internal/ingest/document"
)

// init turns a process started by sandboxPDF into the PDF parser: any
// binary that links this package (ragd, and the test binary of every
// package that imports it, ingest's included) can serve as its own sandbox
// without a separate executable or a hook in main.
func init() {
	if os.Getenv(sandboxEnv) == sandboxPDFMode {
		os.Exit(serveSandbox(os.Stdin, os.Stdout))
	}
}

// serveSandbox reads one request, parses, writes the reply frames and
// returns the exit status.
func serveSandbox(in io.Reader, out io.Writer) int {
	var req sandboxRequest
	if err := gob.NewDecoder(in).Decode(&req); err != nil {
		fmt.Fprintln(os.Stderr, "sandbox: read request:", err)
		return 2
	}
	capMemory(req.MemoryBytes)
	capCPU(req.Timeout)
	enc := gob.NewEncoder(out)
	data := readablePDF(req.Data, req.MemoryBytes)
	if req.Text {
		var frame sandboxText
		ocr, stop := childOCR(req, func(done, total int) {
			_ = enc.Encode(sandboxText{Progress: &ocrProgress{Done: done, Total: total}})
		})
		l, err := parsePDF(data, req.Name, req.MaxPages, req.OCR, ocr)
		stop()
		if err != nil {
			frame.Err = reason(err)
		} else {
			frame.Title, frame.Blocks, frame.OCRPages = l.Title, l.Blocks, l.OCRPages
		}
		if err := enc.Encode(frame); err != nil {
			return 2
		}
		if frame.Err != "" {
			return 0 // no pictures without the document
		}
	}
	if req.Images {
		var frame sandboxImages
		imgs, err := safeExtractPDFImages(data, req.MaxPages)
		if err != nil {
			frame.Err = reason(err)
		}
		frame.Images = imgs
		if err := enc.Encode(frame); err != nil {
			return 2
		}
	}
	return 0
}

// childOCR is the sandbox's reader of scanned pages, nil when OCR is off
// or its programs are missing. Its programs get the parse's time and a
// little more: the parent kills them with the sandbox at its own deadline,
// this one is a backstop. stop releases it.
func childOCR(req sandboxRequest, progress func(done, total int)) (ocrReader, func()) {
	if req.OCR.Off {
		return nil, func() {}
	}
	tools, err := findOCRTools()
	if err != nil {
		return nil, func() {}
	}
	ctx, cancel := context.WithTimeout(context.Background(), req.Timeout+2*time.Second)
	o := &pageOCR{ctx: ctx, tools: tools, langs: req.OCR.languages(), data: req.Data, progress: progress}
	return o.read, cancel
}

func safeExtractPDFImages(data []byte, maxPages int) (imgs []document.Image, err error) {
	defer func() {
		if r := recover(); r != nil {
			imgs, err = nil, fmt.Errorf("malformed PDF: %s", document.PanicText(r))
		}
	}()
	return extractPDFImages(data, maxPages)
}

// reason is a parse error's cause without the "cannot read PDF" preamble,
// which the parent adds back with the document's name.
func reason(err error) string {
	var pe *document.ParseError
	if errors.As(err, &pe) && pe.Err != nil {
		return pe.Err.Error()
	}
	return err.Error()
}

// capMemory keeps the process within budget bytes: a hard limit on its
// data segment where the kernel offers one (not under the race detector,
// whose shadow memory counts against it), a soft one the collector works
// towards, and a watchdog that exits with exitOverBudget once the heap
// passes the budget anyway.
func capMemory(budget int64) {
	if budget <= 0 {
		return
	}
	setDataLimit(budget)
	debug.SetMemoryLimit(budget / 2)
	debug.SetMaxStack(64 << 20)
	go watchMemory(budget)
}

func watchMemory(budget int64) {
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}, {Name: "/memory/classes/heap/unused:bytes"}}
	for range time.Tick(5 * time.Millisecond) {
		metrics.Read(sample)
		if used := sample[0].Value.Uint64() + sample[1].Value.Uint64(); used > uint64(budget) {
			fmt.Fprintf(os.Stderr, "sandbox: heap %d MiB over the budget of %d MiB\n", used>>20, budget>>20)
			os.Exit(exitOverBudget)
		}
	}
}
