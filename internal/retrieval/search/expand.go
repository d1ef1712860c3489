package search

import (
	"math"
	"strings"

	"ragd/internal/catalog/vocab"
)

// Retrieval holds the query-side techniques of a search beyond plain
// hybrid search; each is switchable in config (search section) and
// measured in docs/RETRIEVAL.md. It is part of the plan, so cached results
// of different settings never mix.
type Retrieval struct {
	// RankedFusion fuses BM25 and vectors by rank, not by normalised score.
	RankedFusion bool `json:"rf,omitempty"`
	// PathBoost weighs the heading trail against the body in BM25 (0 = 1).
	PathBoost float64 `json:"pb,omitempty"`
	// StemExpansion adds the namespace's words sharing a query word's stem.
	StemExpansion bool `json:"stem,omitempty"`
	// NeighbourExpansion adds the namespace's words nearest to a query word
	// in the embedder's word space, NeighbourTerms per word at least
	// NeighbourMinSimilarity similar.
	NeighbourExpansion     bool    `json:"nb,omitempty"`
	NeighbourMinSimilarity float64 `json:"nbs,omitempty"`
	NeighbourTerms         int     `json:"nbt,omitempty"`
	// SynonymExpansion adds the namespace's words that the thesaurus gives
	// for a query word in its first SynonymSenses senses.
	SynonymExpansion bool `json:"syn,omitempty"`
	SynonymSenses    int  `json:"syns,omitempty"`
	// KeywordSynonymExpansion turns SynonymExpansion on for keyword-mode
	// searches (the plan applies it).
	KeywordSynonymExpansion bool `json:"ksyn,omitempty"`
	// RelatedWeight weighs the words a thesaurus related to each chunk at
	// ingest against its body in BM25; 0 leaves them unsearched.
	RelatedWeight float64 `json:"rel,omitempty"`
	// PRF searches a second time with PRFTerms distinctive words of the
	// first PRFDocs results added.
	PRF      bool `json:"prf,omitempty"`
	PRFDocs  int  `json:"prfd,omitempty"`
	PRFTerms int  `json:"prft,omitempty"`
	// Rewrite adds the words of a hypothetical answer from the chat model.
	Rewrite bool `json:"rw,omitempty"`
}

// expands reports whether the keyword side of a search may be expanded.
func (r Retrieval) expands() bool {
	return r.StemExpansion || r.NeighbourExpansion || r.SynonymExpansion || r.PRF
}

// Weights of added words relative to a word of the query itself (1): an
// added word is a guess, so it may tip a ranking but not outweigh the
// user's own words. Measured on the development set (docs/RETRIEVAL.md).
const (
	stemWeight      = 0.5
	neighbourWeight = 0.5 // times the word's similarity
	synonymWeight   = 0.5
	prfWeight       = 0.5 // all feedback words together, per query word
	rewriteWeight   = 0.5
)

// weightUnit is how many times an expanded keyword query repeats the
// original query. Weaviate's BM25 adds up the scores of repeated query
// words, so a word written once weighs 1/weightUnit of an original word:
// weights without a query syntax for them.
const weightUnit = 6

// term is a word added to a query with its weight relative to an original
// word.
type term struct {
	word   string
	weight float64
}

// expansion collects added words, each once at its highest weight, never a
// word of the query itself.
type expansion struct {
	query map[string]bool
	terms []term
	index map[string]int
}

func newExpansion(query string) *expansion {
	e := &expansion{query: map[string]bool{}, index: map[string]int{}}
	for _, w := range vocab.Terms(query) {
		e.query[w] = true
	}
	return e
}

// add records word at weight, keeping the higher weight of a repeat.
// Stopwords and the query's own words are skipped: the original query
// already carries the latter at full weight.
func (e *expansion) add(word string, weight float64) {
	if e.query[word] || vocab.IsStopword(word) || weight <= 0 {
		return
	}
	if i, ok := e.index[word]; ok {
		e.terms[i].weight = math.Max(e.terms[i].weight, weight)
		return
	}
	e.index[word] = len(e.terms)
	e.terms = append(e.terms, term{word, weight})
}

// text renders the BM25 query: the original query weightUnit times, then
// each added word repeated in proportion to its weight (at least once).
// Without added words it is the query unchanged, so a search without
// expansion scores exactly as plain hybrid search.
func (e *expansion) text(query string) string {
	if len(e.terms) == 0 {
		return query
	}
	var b strings.Builder
	for range weightUnit {
		b.WriteString(query)
		b.WriteByte('\n')
	}
	for _, t := range e.terms {
		for range max(1, int(math.Round(t.weight*weightUnit))) {
			b.WriteString(t.word)
			b.WriteByte(' ')
		}
	}
	return strings.TrimSpace(b.String())
}

// queryWords are the query's content words: what expansion starts from.
func queryWords(query string) []string {
	var out []string
	seen := map[string]bool{}
	for _, w := range vocab.Terms(query) {
		if !seen[w] && !vocab.IsStopword(w) {
			seen[w] = true
			out = append(out, w)
		}
	}
	return out
}

// expandStems adds, for each content word of the query, the namespace's
// words sharing its stem: a user asks about "timeouts" or a "serializer",
// the documents say "timeout" and "serialization". Only words the
// namespace contains are added, so none is wasted on BM25.
func expandStems(e *expansion, query string, stats *vocab.Stats) {
	for _, w := range queryWords(query) {
		for _, v := range stats.Variants(w) {
			e.add(v, stemWeight)
		}
	}
}
