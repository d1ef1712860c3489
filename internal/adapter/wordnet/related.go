package wordnet

import (
	"slices"
	"strings"
)

// suffixRules are WordNet's detachment rules (morphy(7WN)): an inflected
// suffix and the ending of the base form it may come from.
var suffixRules = map[byte][][2]string{
	'n': {{"s", ""}, {"ses", "s"}, {"xes", "x"}, {"zes", "z"}, {"ches", "ch"}, {"shes", "sh"}, {"men", "man"}, {"ies", "y"}},
	'v': {{"s", ""}, {"ies", "y"}, {"es", "e"}, {"es", ""}, {"ed", "e"}, {"ed", ""}, {"ing", "e"}, {"ing", ""}},
	'a': {{"er", ""}, {"est", ""}, {"er", "e"}, {"est", "e"}},
}

// baseForms returns the lemmas of one part of speech that the lowercase
// word may be an inflection of, the word itself first if it is one.
func (db *DB) baseForms(word string, pos byte) []string {
	var out []string
	add := func(b string) {
		if _, ok := db.senses(pos, b); ok {
			for _, o := range out {
				if o == b {
					return
				}
			}
			out = append(out, b)
		}
	}
	add(word)
	for _, b := range db.exceptions[lemmaKey{pos, word}] {
		add(b)
	}
	for _, r := range suffixRules[pos] {
		if strings.HasSuffix(word, r[0]) && len(word) > len(r[0]) {
			add(strings.TrimSuffix(word, r[0]) + r[1])
		}
	}
	return out
}

// Related returns the single words WordNet relates to word (lowercase, in
// any inflection): the other lemmas of its senses — the first senses of
// each part of speech, most frequent first — and the words derivationally
// related to it in those senses (verify → verification, urgent →
// urgency). Multi-word lemmas are split into their words. The word and its
// base forms are never returned; the order is stable.
func (db *DB) Related(word string, senses int) []string {
	word = strings.ToLower(word)
	skip := map[string]bool{word: true}
	type sense struct {
		synset int32
		lemma  string
	}
	var found []sense
	for _, p := range partsOfSpeech {
		for _, base := range db.baseForms(word, p.letter) {
			skip[base] = true
			ids, _ := db.senses(p.letter, base)
			// max(…, 0): a negative senses would slice out of range.
			for _, id := range ids[:max(min(len(ids), senses), 0)] {
				found = append(found, sense{id, base})
			}
		}
	}
	var out []string
	seen := map[string]bool{}
	add := func(lemma string) {
		for _, w := range strings.FieldsFunc(lemma, func(r rune) bool { return r == '_' || r == '-' || r == '\'' || r == '.' }) {
			if !skip[w] && !seen[w] {
				seen[w] = true
				out = append(out, w)
			}
		}
	}
	for _, s := range found {
		words := db.synsetWords(s.synset)
		for _, w := range words {
			add(db.lemma(w))
		}
		for _, l := range db.synsetLinks(s.synset) {
			// A derivation link belongs to one word of the synset: follow
			// only those of the word asked about.
			if l.target < 0 || l.from == 0 || int(l.from) > len(words) || db.lemma(words[l.from-1]) != s.lemma {
				continue
			}
			target := db.synsetWords(l.target)
			if l.to >= 1 && int(l.to) <= len(target) {
				add(db.lemma(target[l.to-1]))
			}
		}
	}
	return out
}

// BaseForms returns the lemmas the lowercase word may be an inflection of
// in any part of speech (tasks → task, ran → run), the word itself first
// when it is one, each once.
func (db *DB) BaseForms(word string) []string {
	word = strings.ToLower(word)
	var out []string
	for _, p := range partsOfSpeech {
		for _, b := range db.baseForms(word, p.letter) {
			if !slices.Contains(out, b) {
				out = append(out, b)
			}
		}
	}
	if i := slices.Index(out, word); i > 0 {
		out = append(append([]string{word}, out[:i]...), out[i+1:]...)
	}
	return out
}
