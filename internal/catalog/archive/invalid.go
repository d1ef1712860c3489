package archive

import (
	"strconv"

	"ragd"
)

// Invalid is the 422 for what is wrong with an  Its loc
// points at the fault: body > archive for the stream as a whole, and
// > records > <n> > <record type> > <field> for one record's (n is the
// record's line in the decompressed archive); the message names the
// record's document and index too.
func (e *Error) Invalid() *ragd.Error {
	loc := []string{"body", "archive"}
	if e.Record > 0 {
		loc = append(loc, "records", strconv.Itoa(e.Record))
		if e.At != nil {
			loc = append(loc, e.At.Type)
			if e.At.Field != "" {
				loc = append(loc, e.At.Field)
			}
		}
	}
	msg := e.Error()
	return &ragd.Error{Kind: ragd.KindInvalid, Message: msg, Fields: []ragd.FieldError{{Loc: loc, Msg: msg, Type: "value_error"}}}
}
