package pdftext

import (
	"context"

	"ragd"
	"ragd/internal/ingest/document"
)

// Parser parses PDFs within its Limits, each in a child process
// (sandbox.go) that is killed at the deadline and cannot grow past the
// memory budget.
type Parser struct {
	Limits Limits
	// Images also extracts the pictures into Loaded.Images, from the same
	// parse as the text.
	Images bool
	// OCR reads the pages that have no text layer.
	OCR OCR
	// Progress, when set, hears OCR's progress: pages done of total.
	Progress func(done, total int)
}

// Parse reads the text of a PDF, and its pictures when p.Images is set,
// and gives it the treatment of document.Finish. name (a file name or URL)
// appears in errors and gives the title when the document has none of its
// own. ctx ending stops the parse at once and returns ctx's error (the job
// may retry); the parse outliving Limits.Timeout is a permanent
// *document.ParseError.
func (p Parser) Parse(ctx context.Context, data []byte, name string) (*document.Loaded, error) {
	ask := sandboxAsk{Text: true, Images: p.Images, OCR: p.OCR, Progress: p.Progress}
	l, err := sandboxPDF(ctx, data, name, p.Limits.withDefaults(), ask)
	if err != nil {
		return nil, err
	}
	return document.Finish(l, ragd.SourcePDF, name)
}

// ExtractImages returns the pictures of a PDF in page and drawing order,
// read in the sandbox with the default Limits, within document.MaxImages
// and document.MaxImageBytes. It fails only when the file is corrupt (a
// *document.ParseError without Source: the caller knows the name); a
// picture it cannot decode is skipped.
func ExtractImages(data []byte) (imgs []document.Image, err error) {
	defer func() {
		if r := recover(); r != nil {
			imgs, err = nil, document.Errorf("", ragd.SourcePDF, "malformed PDF: %s", document.PanicText(r))
		}
	}()
	var l *document.Loaded
	if l, err = sandboxPDF(context.Background(), data, "", Limits{}.withDefaults(), sandboxAsk{Images: true}); l != nil {
		imgs, err = l.Images, l.ImagesErr
	}
	document.FoldImageText(imgs)
	return imgs, err
}
