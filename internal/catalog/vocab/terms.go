package vocab

import (
	"strings"
	"unicode"
)

// Terms splits text into lowercase runs of letters and digits: the same
// terms Weaviate's "word" tokenization indexes, so a word learned here is a
// word BM25 can match.
func Terms(text string) []string {
	return strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
}

// IsNumber reports whether w is all digits: numbers in a passage (years,
// sizes) rarely say what it is about, so expansion neither starts from nor
// adds one.
func IsNumber(w string) bool { return strings.Trim(w, "0123456789") == "" }

// IsStopword reports whether w is a common English word that says nothing
// about a topic; expansion never starts from or adds one.
func IsStopword(w string) bool { return stopwords[w] }

// stopwords are the usual English function words, plus single letters and
// the leftovers of split contractions ("don't" → don, t).
var stopwords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`a about above after again against all also am an and any are as at be because
been before being below between both but by can could did do does doing done don down during each
either etc few for from further had has have having he her here hers herself him himself his how
i if in into is it its itself just ll may me might more most must my myself no nor not now of off
on only or other ought our ours ourselves out over own re same shall she should so some such
than that the their theirs them themselves then there these they this those through to too under
until up upon us ve very was we were what when where whether which while who whom whose why will
with within without would yet you your yours yourself yourselves`) {
		m[w] = true
	}
	for r := 'a'; r <= 'z'; r++ {
		m[string(r)] = true
	}
	return m
}()
