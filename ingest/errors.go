package ingest

import (
	"errors"
	"fmt"
	"strings"

	"ragd"
)

// ErrUnsupported reports a file extension or content type ingest cannot load.
var ErrUnsupported = errors.New("unsupported source type")

// ParseError reports a document that cannot be parsed: a corrupt PDF or
// DOCX, text that is not UTF-8, a document without any text. It is
// permanent: retrying the same bytes gives the same failure.
type ParseError struct {
	Source string // file name or URL
	// Type, when set, names the format in the message ("cannot read PDF …").
	Type ragd.SourceType
	Err  error
}

// Error names the format and the source, then the reason.
func (e *ParseError) Error() string {
	what := formatName(e.Type)
	if what != "" {
		what += " "
	}
	// parsers may quote raw bytes of the file; keep the message valid UTF-8
	return strings.ToValidUTF8(fmt.Sprintf("cannot read %s%q: %v", what, e.Source, e.Err), "?")
}

// Unwrap returns the underlying cause.
func (e *ParseError) Unwrap() error { return e.Err }

func formatName(t ragd.SourceType) string {
	switch t {
	case ragd.SourcePDF:
		return "PDF"
	case ragd.SourceDOCX:
		return "DOCX"
	case ragd.SourceHTML:
		return "HTML"
	case ragd.SourceMarkdown:
		return "Markdown"
	case ragd.SourceText:
		return "text"
	}
	return ""
}

func parseErr(name string, t ragd.SourceType, format string, args ...any) *ParseError {
	return &ParseError{Source: name, Type: t, Err: fmt.Errorf(format, args...)}
}

// IsPermanent reports whether retrying the operation that returned err cannot
// succeed: unparseable documents, unsupported types, HTTP 4xx answers,
// refused addresses, invalid requests and sources over the size limit.
// Network failures and HTTP 5xx answers are transient.
func IsPermanent(err error) bool {
	if err == nil {
		return false
	}
	var pe *ParseError
	if errors.As(err, &pe) || errors.Is(err, ErrUnsupported) {
		return true
	}
	var p interface{ Permanent() bool }
	if errors.As(err, &p) {
		return p.Permanent()
	}
	switch ragd.KindOf(err) {
	case ragd.KindInvalid, ragd.KindForbidden, ragd.KindTooLarge:
		return true
	}
	return false
}
