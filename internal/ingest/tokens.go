package ingest

import (
	"unicode"
	"unicode/utf8"
)

// CountTokens estimates the tokens in s the way embedding models roughly
// split text: a word (a letter followed by letters, digits, marks, ', _ or
// -), a run of digits, or any other single non-space character. It is a
// cheap, allocation-free stand-in for a model tokenizer, used for chunk
// sizing only.
func CountTokens(s string) int {
	n := 0
	for i := 0; ; n++ {
		start, end := nextToken(s, i)
		if start < 0 {
			return n
		}
		i = end
	}
}

// nextToken returns the byte span of the first token at or after offset i,
// or (-1, -1) when there is none. A token's extent depends only on the text
// from its start, so cutting s at a token boundary never changes the count.
func nextToken(s string, i int) (start, end int) {
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		if unicode.IsSpace(r) {
			i += size
			continue
		}
		start, end = i, i+size
		switch {
		case unicode.IsLetter(r):
			for end < len(s) {
				r, size := utf8.DecodeRuneInString(s[end:])
				if !isWordRune(r) {
					break
				}
				end += size
			}
		case unicode.IsNumber(r):
			for end < len(s) {
				r, size := utf8.DecodeRuneInString(s[end:])
				if !unicode.IsNumber(r) {
					break
				}
				end += size
			}
		}
		return start, end
	}
	return -1, -1
}

func isWordRune(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsNumber(r) || unicode.IsMark(r) ||
		r == '\'' || r == '_' || r == '-' || r == '\u2019'
}

// tokenSpans returns the byte spans of all tokens in s.
func tokenSpans(s string) [][2]int {
	var spans [][2]int
	for i := 0; ; {
		start, end := nextToken(s, i)
		if start < 0 {
			return spans
		}
		spans = append(spans, [2]int{start, end})
		i = end
	}
}
