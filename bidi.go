package ragd

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Disguising returns the first character of s that makes it display as
// other than it is, if any: a Unicode bidirectional control (U+202E
// RIGHT-TO-LEFT OVERRIDE and the other Bidi_Control characters), which
// changes the order text displays in ("invoice\u202Efdp.exe" shows as
// "invoiceexe.pdf"), or an invisible one (isInvisible), which shows as
// nothing ("re\u200Bport.md" shows as "report.md" but is another name). A
// name, title or tag ragd shows to people may not hold one: a request's
// is refused (DisguiseRefusal), one taken from a document is stripped
// (StripDisguising).
func Disguising(s string) (rune, bool) {
	if i := strings.IndexFunc(s, isDisguising); i >= 0 {
		r, _ := utf8.DecodeRuneInString(s[i:])
		return r, true
	}
	return 0, false
}

// StripDisguising removes the characters Disguising finds from s.
func StripDisguising(s string) string {
	if _, ok := Disguising(s); !ok {
		return s
	}
	return strings.Map(func(r rune) rune {
		if isDisguising(r) {
			return -1
		}
		return r
	}, s)
}

// DisguiseRefusal is the message refusing a what (a "file name", a
// "title") that holds r, a character Disguising finds.
func DisguiseRefusal(what string, r rune) string {
	if isInvisible(r) {
		return fmt.Sprintf("%s holds the invisible character U+%04X, which would make it display as other than it is", what, r)
	}
	return fmt.Sprintf("%s holds the bidirectional control character U+%04X, which would make it display as other than it is", what, r)
}

func isDisguising(r rune) bool { return unicode.Is(unicode.Bidi_Control, r) || isInvisible(r) }

// isInvisible: r has no width and no use in a name but to hide a
// difference: U+200B ZERO WIDTH SPACE, U+2060 WORD JOINER and the
// invisible operators U+2061-U+2064, U+FEFF ZERO WIDTH NO-BREAK SPACE (a
// byte order mark), U+180E MONGOLIAN VOWEL SEPARATOR. The zero-width
// joiner and non-joiner (U+200D, U+200C) are not: emoji, Indic and
// Persian text need them.
func isInvisible(r rune) bool {
	return r == 0x200B || (r >= 0x2060 && r <= 0x2064) || r == 0xFEFF || r == 0x180E
}
