package worker

import (
	"sort"
	"strings"

	"ragd"
	"ragd/internal/catalog/vocab"
)

// relatedSenses is how many senses of a chunk's word lend it their
// synonyms: the most frequent only, since a chunk's words are not
// disambiguated and every further sense adds mostly noise
// (docs/RETRIEVAL.md).
const relatedSenses = 1

// relatedWords lists, for a chunk's heading trail and body, the words the
// thesaurus relates to its content words that the chunk does not already
// contain, sorted, space-separated: a document says "priority", the user
// asks about precedence. Words shorter than three letters, stopwords and
// numbers (WordNet relates "hundred" to "100") neither start nor join the
// list.
func relatedWords(c ragd.Chunk, th ragd.Thesaurus) string {
	own := map[string]bool{}
	for _, w := range vocab.Terms(c.Path + "\n" + c.Text) {
		own[w] = true
	}
	added := map[string]bool{}
	for w := range own {
		if len(w) < 3 || vocab.IsStopword(w) || vocab.IsNumber(w) {
			continue
		}
		for _, r := range th.Related(w, relatedSenses) {
			if !own[r] && len(r) >= 3 && !vocab.IsStopword(r) && !vocab.IsNumber(r) {
				added[r] = true
			}
		}
	}
	out := make([]string, 0, len(added))
	for w := range added {
		out = append(out, w)
	}
	sort.Strings(out)
	return strings.Join(out, " ")
}
