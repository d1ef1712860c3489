package ingest

import (
	"context"
	"fmt"

	"ragd"
	"ragd/internal/ingest/document"
	"ragd/internal/ingest/docx"
	"ragd/internal/ingest/pdftext"
	"ragd/internal/ingest/sourcetype"
)

// Parser parses documents within its Limits. PDFs are parsed in a child
// process (see package pdf) that is killed at the deadline and cannot grow
// past the memory budget; the other formats are parsed in-process by
// streaming parsers with bounds of their own.
type Parser struct {
	Limits pdftext.Limits
	// Images also extracts the pictures of PDF and DOCX documents into
	// Loaded.Images, from the same parse as the text.
	Images bool
	// OCR reads the PDF pages that have no text layer.
	OCR pdftext.OCR
	// Progress, when set, hears OCR's progress: pages done of total.
	Progress func(done, total int)
}

// Parse loads data of type typ with the default limits and no pictures.
// name (a file name or URL) appears in errors and gives the title when the
// document has none of its own.
func Parse(data []byte, typ ragd.SourceType, name string) (*document.Loaded, error) {
	return Parser{}.Parse(context.Background(), data, typ, name)
}

// Parse loads data of type typ. ctx ending stops a PDF parse at once and
// returns ctx's error (the job may retry); the parse outliving
// Limits.Timeout is a permanent *document.ParseError.
func (p Parser) Parse(ctx context.Context, data []byte, typ ragd.SourceType, name string) (*document.Loaded, error) {
	var (
		l   *document.Loaded
		err error
	)
	switch typ {
	case ragd.SourceText:
		l, err = parseText(data, name)
	case ragd.SourceMarkdown:
		l, err = parseMarkdown(data, name)
	case ragd.SourceHTML:
		l, err = parseHTML(data, name)
	case ragd.SourcePDF:
		return pdftext.Parser{Limits: p.Limits, Images: p.Images, OCR: p.OCR, Progress: p.Progress}.Parse(ctx, data, name)
	case ragd.SourceDOCX:
		return docx.Parse(data, name, p.Images)
	default:
		return nil, fmt.Errorf("%w: %q", sourcetype.ErrUnsupported, typ)
	}
	if err != nil {
		return nil, err
	}
	return document.Finish(l, typ, name)
}
