package search

import (
	"ragd"
	"ragd/internal/catalog/vocab"
)

// expandSynonyms adds, for each content word of the query, the words the
// thesaurus relates to it — synonyms and derivations — as the namespace
// spells them: the related word itself and the namespace's words sharing
// its stem (WordNet says "prioritize", the documents "prioritized"). A user
// asks for something "hidden", the documents say "concealed". Words the namespace lacks are never added, except the
// query words' base forms when chunks' related words are searched: those
// are stored as base forms (ragd.Chunk.Related), so "tasks" must also ask
// for "task" to meet them.
func expandSynonyms(e *expansion, query string, stats *vocab.Stats, th ragd.Thesaurus, r Retrieval) {
	for _, w := range queryWords(query) {
		for _, b := range th.BaseForms(w) {
			if r.RelatedWeight > 0 || stats.Has(b) {
				e.add(b, synonymWeight)
			}
		}
		for _, rel := range th.Related(w, max(r.SynonymSenses, 1)) {
			if stats.Has(rel) {
				e.add(rel, synonymWeight)
			}
			for _, v := range stats.Variants(rel) {
				e.add(v, synonymWeight)
			}
		}
	}
}
