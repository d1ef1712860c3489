package library

import (
	"strconv"
	"unicode/utf8"
)

// maxQuotedChars bounds what of a request's value an error message quotes:
// a name given in a 1 MB body should not come back whole.
const maxQuotedChars = 64

// QuoteClipped is s quoted for a message, its first maxQuotedChars
// characters only, followed by "…" and its length when cut.
func QuoteClipped(s string) string {
	if utf8.RuneCountInString(s) <= maxQuotedChars {
		return strconv.Quote(s)
	}
	cut := 0
	for range maxQuotedChars {
		_, n := utf8.DecodeRuneInString(s[cut:])
		cut += n
	}
	return strconv.Quote(s[:cut]) + "… (" + strconv.Itoa(len(s)) + " bytes)"
}
