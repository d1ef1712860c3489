package ragd

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// BidiControl returns the first Unicode bidirectional control character
// in s (U+202E RIGHT-TO-LEFT OVERRIDE and the other Bidi_Control
// characters), if any. They change the order text displays in:
// "invoice\u202Efdp.exe" shows as "invoiceexe.pdf". A name or title ragd
// shows to people may not hold one: a request's is refused, one taken from
// a document is stripped (StripBidiControls).
func BidiControl(s string) (rune, bool) {
	if i := strings.IndexFunc(s, isBidiControl); i >= 0 {
		r, _ := utf8.DecodeRuneInString(s[i:])
		return r, true
	}
	return 0, false
}

// StripBidiControls removes the bidirectional control characters from s.
func StripBidiControls(s string) string {
	if _, ok := BidiControl(s); !ok {
		return s
	}
	return strings.Map(func(r rune) rune {
		if isBidiControl(r) {
			return -1
		}
		return r
	}, s)
}

// BidiRefusal is the message refusing a what (a "file name", a "title")
// that holds the control character r.
func BidiRefusal(what string, r rune) string {
	return fmt.Sprintf("%s holds the bidirectional control character U+%04X, which would make it display as other than it is", what, r)
}

func isBidiControl(r rune) bool { return unicode.Is(unicode.Bidi_Control, r) }
