package vocab

import (
	"math"
	"sort"
)

// Stats are a namespace's vocabulary: how many chunks it has and in how
// many of them each word occurs. A Stats is read-only once built and safe
// for concurrent use.
type Stats struct {
	chunks int
	df     map[string]int
	stems  map[string][]string // stem → the namespace's words with it, sorted
}

// NewStats builds statistics from chunk counts and document frequencies; df
// is kept, not copied.
func NewStats(chunks int, df map[string]int) *Stats {
	s := &Stats{chunks: chunks, df: df, stems: map[string][]string{}}
	for w := range df {
		st := Stem(w)
		s.stems[st] = append(s.stems[st], w)
	}
	for _, ws := range s.stems {
		sort.Strings(ws)
	}
	return s
}

// Chunks is how many chunks the statistics cover.
func (s *Stats) Chunks() int { return s.chunks }

// DF is the number of chunks holding w.
func (s *Stats) DF(w string) int { return s.df[w] }

// Has reports whether any chunk holds w.
func (s *Stats) Has(w string) bool { return s.df[w] > 0 }

// IDF is BM25's inverse document frequency of w; a word no chunk holds gets
// the highest value.
func (s *Stats) IDF(w string) float64 {
	n, d := float64(s.chunks), float64(s.df[w])
	return math.Log(1 + (n-d+0.5)/(d+0.5))
}

// Variants returns the namespace's words that share w's stem, w excluded,
// sorted.
func (s *Stats) Variants(w string) []string {
	var out []string
	for _, v := range s.stems[Stem(w)] {
		if v != w {
			out = append(out, v)
		}
	}
	return out
}

// Words returns every word of the namespace, sorted.
func (s *Stats) Words() []string {
	out := make([]string, 0, len(s.df))
	for w := range s.df {
		out = append(out, w)
	}
	sort.Strings(out)
	return out
}
