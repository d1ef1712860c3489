package ingest

import (
	"context"
	"fmt"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"ragd"
)

// Limits bound the parsing of one document whatever the file claims.
type Limits struct {
	// MaxPages refuses PDFs with more pages (declared or found).
	MaxPages int
	// Timeout bounds the whole parse of a PDF, text and pictures.
	Timeout time.Duration
	// MemoryBytes is the memory budget of the process that parses a PDF.
	MemoryBytes int64
}

// The default Limits, used for zero fields.
const (
	DefaultMaxPages     = 5000
	DefaultParseTimeout = 2 * time.Minute
	DefaultParseMemory  = 1 << 30
)

func (l Limits) withDefaults() Limits {
	if l.MaxPages <= 0 {
		l.MaxPages = DefaultMaxPages
	}
	if l.Timeout <= 0 {
		l.Timeout = DefaultParseTimeout
	}
	if l.MemoryBytes <= 0 {
		l.MemoryBytes = DefaultParseMemory
	}
	return l
}

// Parser parses documents within its Limits. PDFs are parsed in a child
// process (see sandbox.go) that is killed at the deadline and cannot grow
// past the memory budget; the other formats are parsed in-process by
// streaming parsers with bounds of their own.
type Parser struct {
	Limits Limits
	// Images also extracts the pictures of PDF and DOCX documents into
	// Loaded.Images, from the same parse as the text.
	Images bool
	// OCR reads the PDF pages that have no text layer.
	OCR OCR
	// Progress, when set, hears OCR's progress: pages done of total.
	Progress func(done, total int)
}

// Parse loads data of type typ with the default limits and no pictures.
// name (a file name or URL) appears in errors and gives the title when the
// document has none of its own.
func Parse(data []byte, typ ragd.SourceType, name string) (*Loaded, error) {
	return Parser{}.Parse(context.Background(), data, typ, name)
}

// Parse loads data of type typ. ctx ending stops a PDF parse at once and
// returns ctx's error (the job may retry); the parse outliving
// Limits.Timeout is a permanent *ParseError.
func (p Parser) Parse(ctx context.Context, data []byte, typ ragd.SourceType, name string) (*Loaded, error) {
	var (
		l   *Loaded
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
		l, err = sandboxPDF(ctx, data, name, p.Limits.withDefaults(), sandboxAsk{Text: true, Images: p.Images, OCR: p.OCR, Progress: p.Progress})
	case ragd.SourceDOCX:
		l, err = parseDOCX(data, name, p.Images) // NOTE(helper-docx): 3-arg form
	default:
		return nil, fmt.Errorf("%w: %q", ErrUnsupported, typ)
	}
	if err != nil {
		return nil, err
	}
	return finish(l, typ, name)
}

// finish gives every loader the same treatment of blocks and titles.
func finish(l *Loaded, typ ragd.SourceType, name string) (*Loaded, error) {
	l.SourceType = typ
	l.Blocks = cleanBlocks(l.Blocks)
	if len(l.Blocks) == 0 {
		return nil, parseErr(name, typ, "no extractable text")
	}
	l.Title = normalizeSpace(l.Title)
	if l.Title == "" {
		l.Title = firstHeading(l.Blocks, 1)
	}
	if l.Title == "" {
		l.Title = fallbackTitle(name)
	}
	l.Title = cutTitle(l.Title)
	for i := range l.Images {
		l.Images[i].Caption, l.Images[i].Nearby = foldLigatures(l.Images[i].Caption), foldLigatures(l.Images[i].Nearby)
	}
	return l, nil
}

// cutTitle cuts a title taken from a document (its metadata, a heading,
// its name) to ragd.MaxTitleChars, ending it with "…", and strips its
// bidirectional controls: a request may set neither, and an export of the
// document must import again.
func cutTitle(title string) string {
	title = ragd.StripBidiControls(title)
	if utf8.RuneCountInString(title) <= ragd.MaxTitleChars {
		return title
	}
	r := []rune(title)[:ragd.MaxTitleChars-1]
	return strings.TrimRightFunc(string(r), unicode.IsSpace) + "…"
}
