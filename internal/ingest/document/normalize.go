package document

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// bom is the UTF-8 byte order mark some editors put at the start of a file.
const bom = "\uFEFF"

// isHSpace reports horizontal whitespace: spaces, tabs and the Unicode
// space separators (no-break space and friends), but not line breaks.
func isHSpace(r rune) bool {
	return r == ' ' || r == '\t' || r == '\v' || r == '\f' || unicode.Is(unicode.Zs, r)
}

// NormalizeNewlines turns CRLF and lone CR into LF and drops a leading BOM.
func NormalizeNewlines(s string) string {
	s = strings.TrimPrefix(s, bom)
	if strings.IndexByte(s, '\r') < 0 {
		return s
	}
	s = strings.ReplaceAll(s, "\r\n", "\n")
	return strings.ReplaceAll(s, "\r", "\n")
}

// normalizeSpace collapses runs of horizontal whitespace to one space, trims
// every line, drops control characters, keeps single and double line breaks
// (three or more become two) and trims the result. Loaders and NormalizedText
// share it so the content hash does not depend on spacing.
func normalizeSpace(s string) string {
	s = FoldLigatures(NormalizeNewlines(s))
	var b strings.Builder
	b.Grow(len(s))
	space, newlines := false, 0
	for _, r := range s {
		switch {
		case r == '\n':
			newlines++
			space = false
		case isHSpace(r):
			space = true
		case r == utf8.RuneError || unicode.IsControl(r) || r == '\uFEFF' || r == '\u00AD':
			// invisible or undecodable: keep neither it nor a gap for it
		default:
			if b.Len() > 0 {
				switch {
				case newlines > 1:
					b.WriteString("\n\n")
				case newlines == 1:
					b.WriteByte('\n')
				case space:
					b.WriteByte(' ')
				}
			}
			space, newlines = false, 0
			b.WriteRune(r)
		}
	}
	return b.String()
}

// normalizeCode keeps a code block's indentation and inner blank lines but
// fixes line endings, trailing spaces and surrounding blank lines. Bytes
// that are not UTF-8 are dropped, as normalizeSpace drops them: a chunk's
// text must be valid UTF-8 to be stored at all.
func normalizeCode(s string) string {
	lines := strings.Split(NormalizeNewlines(strings.ToValidUTF8(s, "")), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRightFunc(strings.ReplaceAll(l, "\t", "    "), unicode.IsSpace)
	}
	return strings.Trim(strings.Join(lines, "\n"), "\n")
}

// ligatures are the Latin typographic ligatures PDFs often carry as single
// characters ("ﬁgures"): folded to their letters so that the word a user
// types matches, in BM25 and in the embedder's vocabulary alike.
var ligatures = strings.NewReplacer("\uFB00", "ff", "\uFB01", "fi", "\uFB02", "fl", "\uFB03", "ffi", "\uFB04", "ffl", "\uFB05", "st", "\uFB06", "st")

// FoldLigatures replaces the ligatures in s by their letters.
func FoldLigatures(s string) string {
	for _, r := range s {
		if r >= 0xFB00 && r <= 0xFB06 {
			return ligatures.Replace(s)
		}
	}
	return s
}
