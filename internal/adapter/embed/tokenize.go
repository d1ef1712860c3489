package embed

import (
	"iter"
	"strings"
	"unicode"
	"unicode/utf8"
)

// tokens yields the lowercase words of text: runs of letters and digits, kept
// joined across a single inner hyphen or apostrophe ("well-known", "don't") so
// the embedder can try the whole form before its parts. Punctuation is
// dropped: the table has it, but SIF weights it to almost nothing anyway.
func tokens(text string) iter.Seq[string] {
	return func(yield func(string) bool) {
		var b strings.Builder
		flush := func() bool {
			if b.Len() == 0 {
				return true
			}
			tok := b.String()
			b.Reset()
			return yield(tok)
		}
		for i, r := range text {
			switch {
			case unicode.IsLetter(r) || unicode.IsDigit(r):
				b.WriteRune(unicode.ToLower(r))
			case (r == '-' || r == '\'' || r == '’') && b.Len() > 0 && wordRuneAt(text, i+utf8.RuneLen(r)):
				// Typographic apostrophes are folded so "don’t" matches "don't".
				if r == '’' {
					r = '\''
				}
				b.WriteRune(r)
			default:
				if !flush() {
					return
				}
			}
		}
		flush()
	}
}

// wordRuneAt reports whether text has a letter or digit at byte offset i.
func wordRuneAt(text string, i int) bool {
	if i >= len(text) {
		return false
	}
	r, _ := utf8.DecodeRuneInString(text[i:])
	return unicode.IsLetter(r) || unicode.IsDigit(r)
}

// contractions maps the endings the table lacks (it has no "n't" or "'s") to
// the words they stand for. "'s" is dropped: is, has and the possessive are
// all near-stopwords.
var contractions = []struct{ suffix, word string }{
	{"n't", "not"},
	{"'re", "are"},
	{"'ll", "will"},
	{"'ve", "have"},
	{"'m", "am"},
	{"'d", "would"},
	{"'s", ""},
}

// irregularNegations are the "n't" forms whose stem is not the verb.
var irregularNegations = map[string]string{"can't": "can", "won't": "will", "shan't": "shall", "ain't": "is"}

// expandContraction splits a word with an apostrophe into the words it stands
// for: "don't" → do not, "we'll" → we will, "o'brien" → o brien.
func expandContraction(tok string) []string {
	if stem, ok := irregularNegations[tok]; ok {
		return []string{stem, "not"}
	}
	for _, c := range contractions {
		if stem, ok := strings.CutSuffix(tok, c.suffix); ok && stem != "" && !strings.ContainsRune(stem, '\'') {
			if c.word == "" {
				return []string{stem}
			}
			return []string{stem, c.word}
		}
	}
	return strings.FieldsFunc(tok, func(r rune) bool { return r == '\'' })
}
