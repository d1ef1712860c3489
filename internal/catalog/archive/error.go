package archive

import (
	"fmt"
	"unicode/utf8"
)

// Error is what is wrong with an archive.
type Error struct {
	// Record is the 1-based number of the record at fault, which is its
	// line in the decompressed archive (0: the stream itself).
	Record int
	// Truncated is set when the archive ends before its trailer.
	Truncated bool
	Msg       string
	// At is where in the record the fault lies, when it is one record's.
	At *Place
}

// Place is where in a record a fault lies.
type Place struct {
	// Type is the record's type.
	Type string
	// DocumentID is the document the record is of ("" for the header).
	DocumentID string
	// Index is a chunk's or an image's index (unused for the others).
	Index int
	// Field is the JSON field at fault, "" for the record as a whole.
	Field string
}

// Error says what is wrong and, for one record's fault, where.
func (e *Error) Error() string {
	switch {
	case e.Truncated:
		return "archive is truncated: " + e.Msg
	case e.Record > 0 && e.At != nil:
		return fmt.Sprintf("archive record %d (%s) is refused: %s", e.Record, e.At, e.Msg)
	case e.Record > 0:
		return fmt.Sprintf("archive is corrupt at record %d: %s", e.Record, e.Msg)
	default:
		return "archive is corrupt: " + e.Msg
	}
}

// String names the record and field: "chunk 3 of document 9f3a…, field
// vector".
func (p *Place) String() string {
	var s string
	switch p.Type {
	case TypeHeader:
		s = "header"
	case TypeChunk, TypeImage:
		s = fmt.Sprintf("%s %d of document %s", p.Type, p.Index, docName(p.DocumentID))
	default:
		s = fmt.Sprintf("%s %s", p.Type, docName(p.DocumentID))
	}
	if p.Field != "" {
		s += ", field " + p.Field
	}
	return s
}

// Refuse is how Rules refuse a record: field names the JSON field at
// fault, and Validate adds the record's number and place.
func Refuse(field, format string, args ...any) error {
	return &Error{Msg: fmt.Sprintf(format, args...), At: &Place{Field: field}}
}

// docName is a document id as a message shows it: quoted unless it has
// the shape ragd gives ids, since a forged one may hold anything.
func docName(id string) string {
	if isHex(id, 32) {
		return id
	}
	return fmt.Sprintf("%q", Clip(id))
}

// maxQuoted bounds what an error quotes of an archive's value: a record
// may hold a 60 MiB id, which no message should repeat.
const maxQuoted = 200

// Clip is an archive's value cut short for a message: at most maxQuoted
// bytes, cut at a character boundary and marked "…".
func Clip(s string) string {
	if len(s) <= maxQuoted {
		return s
	}
	cut := maxQuoted
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}
