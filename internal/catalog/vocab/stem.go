package vocab

import (
	"slices"
	"strings"
)

// suffixes are stripped by Stem, longest first (so "shipments" loses
// "ments", not just "s", and meets "shipment"); one is stripped at most.
var suffixes = byLengthDesc([]string{
	"izations", "ization", "isations", "isation", "ational", "ations", "ation", "itions", "ition", "ings", "ing",
	"izers", "izer", "ized", "izes", "ize", "isers", "iser", "ised", "ises", "ise",
	"ers", "er", "ied", "ies", "ed", "es", "s",
	"ables", "able", "ibly", "ible", "ably", "ly", "ments", "ment", "ness",
	"ities", "ity", "ives", "ive", "al",
})

func byLengthDesc(s []string) []string {
	slices.SortStableFunc(s, func(a, b string) int { return len(b) - len(a) })
	return s
}

// Stem reduces a lowercase word to a crude stem so that its inflections and
// close derivations share one: read, reads, reader, reading → read;
// serializer, serialization, serialized → serial. It is deliberately
// light (one suffix, then a doubled final consonant and a final e): its
// output is only compared with other stems, never shown, and a stem that
// merged unrelated words would add noise to every query using them. Words
// of four letters or fewer are their own stem.
func Stem(w string) string {
	if len(w) <= 4 {
		return w
	}
	for _, suf := range suffixes {
		if strings.HasSuffix(w, suf) && len(w)-len(suf) >= 3 {
			w = w[:len(w)-len(suf)]
			break
		}
	}
	// running → runn → run; but keep "fall", "pass"
	if n := len(w); n > 3 && w[n-1] == w[n-2] && !strings.ContainsRune("aeiouls", rune(w[n-1])) {
		w = w[:n-1]
	}
	return strings.TrimSuffix(w, "e")
}
