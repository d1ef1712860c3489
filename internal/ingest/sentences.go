package ingest

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// span is a byte range [start, end) of a string.
type span struct{ start, end int }

// sentenceSpans splits s into sentences, trimmed of surrounding whitespace.
// A sentence ends at a line break, or after '.', '!' or '?' (and any
// closing quotes or brackets) followed by whitespace and an uppercase letter
// or digit (optionally behind an opening quote or bracket), or after a CJK
// full stop. Abbreviations like "e.g. the" stay whole because a lowercase
// word follows.
func sentenceSpans(s string) []span {
	var out []span
	eachSentence(s, func(sp span) bool {
		out = append(out, sp)
		return true
	})
	return out
}

// eachSentence yields the spans sentenceSpans returns, one at a time,
// until yield returns false.
func eachSentence(s string, yield func(span) bool) {
	start := 0
	emit := func(end int) bool {
		t := trimSpan(s, start, end)
		start = end
		return t.end <= t.start || yield(t)
	}
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == '\n':
			if !emit(i) {
				return
			}
		case r == '。' || r == '！' || r == '？':
			if !emit(i + size) {
				return
			}
		case r == '.' || r == '!' || r == '?':
			j := i + size
			for j < len(s) {
				c, n := utf8.DecodeRuneInString(s[j:])
				if !strings.ContainsRune(`"')]”’»`, c) && c != '.' && c != '!' && c != '?' {
					break
				}
				j += n
			}
			if sentenceStartsAt(s, j) {
				if !emit(j) {
					return
				}
				i = j
				continue
			}
		}
		i += size
	}
	emit(len(s))
}

// sentenceStartsAt reports whether s[j:] is whitespace followed by what can
// start a sentence.
func sentenceStartsAt(s string, j int) bool {
	k := j
	for k < len(s) {
		c, n := utf8.DecodeRuneInString(s[k:])
		if !unicode.IsSpace(c) {
			break
		}
		k += n
	}
	if k == j || k >= len(s) {
		return false
	}
	c, n := utf8.DecodeRuneInString(s[k:])
	if strings.ContainsRune(`"'([“‘«`, c) && k+n < len(s) {
		c, _ = utf8.DecodeRuneInString(s[k+n:])
	}
	return unicode.IsUpper(c) || unicode.IsTitle(c) || unicode.IsDigit(c)
}

func trimSpan(s string, start, end int) span {
	for start < end {
		r, n := utf8.DecodeRuneInString(s[start:end])
		if !unicode.IsSpace(r) {
			break
		}
		start += n
	}
	for end > start {
		r, n := utf8.DecodeLastRuneInString(s[start:end])
		if !unicode.IsSpace(r) {
			break
		}
		end -= n
	}
	return span{start, end}
}

// firstSentence returns the first sentence of s.
func firstSentence(s string) string {
	if sp := sentenceSpans(s); len(sp) > 0 {
		return s[sp[0].start:sp[0].end]
	}
	return ""
}
