package document

import (
	"fmt"
	"strings"

	"ragd"
)

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

// Permanent reports that retrying cannot help: the same bytes fail the
// same way.
func (e *ParseError) Permanent() bool { return true }

// Errorf is the *ParseError of the document name of type t, its reason
// formatted as by fmt.Errorf.
func Errorf(name string, t ragd.SourceType, format string, args ...any) *ParseError {
	return &ParseError{Source: name, Type: t, Err: fmt.Errorf(format, args...)}
}

// PanicText renders a panic a reader recovered from for an error message:
// the libraries quote raw file bytes, which must not make the message
// invalid UTF-8, and it is cut to about 200 bytes.
func PanicText(r any) string {
	s := strings.ToValidUTF8(fmt.Sprint(r), "?")
	if len(s) > 200 {
		s = strings.ToValidUTF8(s[:200], "") + "…"
	}
	return s
}
