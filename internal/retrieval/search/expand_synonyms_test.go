package search

import (
	"math"
	"slices"
	"strings"
	"sync"
	"testing"

	"ragd/internal/catalog/vocab"
)

// fakeThesaurus is a map-backed ragd.Thesaurus that records the senses
// each Related call asked for.
type fakeThesaurus struct {
	related map[string][]string // word → related words, as WordNet's base forms
	bases   map[string][]string // word → base forms; absent means none

	mu     sync.Mutex
	senses []int
}

func (f *fakeThesaurus) Related(word string, senses int) []string {
	f.mu.Lock()
	f.senses = append(f.senses, senses)
	f.mu.Unlock()
	return f.related[word]
}

func (f *fakeThesaurus) BaseForms(word string) []string { return f.bases[word] }

// synonymTimes is how often an added word appears in the expanded text:
// every synonym weighs synonymWeight.
var synonymTimes = int(math.Round(synonymWeight * weightUnit))

// addedWords splits the expanded text into the words after the query's
// weightUnit copies; with nothing added the text must be the plain query.
func addedWords(t *testing.T, text, query string) []string {
	t.Helper()
	if text == query {
		return nil
	}
	if n := strings.Count(text, query); n != weightUnit {
		t.Fatalf("expanded text holds the query %d times, want %d: %q", n, weightUnit, text)
	}
	return strings.Fields(strings.ReplaceAll(text, query, ""))
}

// Synonym expansion only ever adds: the query stays whole, its own words
// (even when the thesaurus hands one back) are not added again, stopwords
// and words the namespace lacks are never added, and each added word
// weighs synonymWeight.
func TestSynonymExpansionAddsOnlyNamespaceWords(t *testing.T) {
	query := "How are urgent tasks served?"
	th := &fakeThesaurus{related: map[string][]string{
		// tasks is a query word; the is a stopword the namespace holds;
		// exigent is a fine synonym no chunk says.
		"urgent": {"pressing", "urgency", "tasks", "the", "exigent"},
		"tasks":  {"undertaking", "urgent", "chore"},
		"served": {"function"},
	}}
	stats := vocab.NewStats(10, map[string]int{
		"pressing": 1, "urgency": 2, "chore": 1, "the": 10, "tasks": 3, "served": 2, "urgent": 1, "lighthouse": 1,
	})
	e := newExpansion(query)
	expandSynonyms(e, query, stats, th, Retrieval{SynonymExpansion: true})
	text := e.text(query)
	for _, w := range vocab.Terms(query) {
		if !strings.Contains(strings.ToLower(text), w) {
			t.Errorf("original word %q dropped", w)
		}
	}
	added := addedWords(t, text, query)
	for _, w := range added {
		switch {
		case e.query[w]:
			t.Errorf("added %q: a query word, already weighed in full", w)
		case vocab.IsStopword(w):
			t.Errorf("added stopword %q", w)
		case !stats.Has(w):
			t.Errorf("added %q, which the namespace does not contain: wasted on BM25", w)
		}
	}
	want := []string{"pressing", "urgency", "chore"}
	for _, w := range want {
		if n := countWord(added, w); n != synonymTimes {
			t.Errorf("%q appears %d times, want %d (weight %.1f)", w, n, synonymTimes, synonymWeight)
		}
	}
	if len(added) != len(want)*synonymTimes {
		t.Errorf("added %q, want only %q", added, want)
	}
	for _, tm := range e.terms {
		if tm.weight != synonymWeight {
			t.Errorf("%q weighs %.2f, want %.2f", tm.word, tm.weight, synonymWeight)
		}
	}
}

// A related word is added as the namespace spells it: WordNet gives a
// base form, the documents hold its inflections, which share its stem.
func TestSynonymExpansionAddsStemVariants(t *testing.T) {
	query := "priority"
	th := &fakeThesaurus{related: map[string][]string{"priority": {"prioritize", "shipment"}}}
	// prioritize is not in the namespace, its inflections are; shipping
	// shares shipment's stem (ship) though the namespace lacks shipment.
	stats := vocab.NewStats(5, map[string]int{"prioritized": 1, "prioritizes": 1, "shipping": 1, "lighthouse": 1})
	e := newExpansion(query)
	expandSynonyms(e, query, stats, th, Retrieval{SynonymExpansion: true})
	added := addedWords(t, e.text(query), query)
	for _, w := range []string{"prioritized", "prioritizes", "shipping"} {
		if n := countWord(added, w); n != synonymTimes {
			t.Errorf("variant %q appears %d times, want %d", w, n, synonymTimes)
		}
	}
	for _, w := range []string{"prioritize", "shipment", "lighthouse"} {
		if countWord(added, w) != 0 {
			t.Errorf("added %q: not in the namespace, or no variant of a related word", w)
		}
	}
}

// The query's base forms are added even when the namespace lacks them
// only when chunks' related words are searched: those are stored as base
// forms, so "tasks" must also ask for "task". Otherwise a base form is
// added only when the namespace holds it, like any other word.
func TestSynonymExpansionBaseForms(t *testing.T) {
	query := "tasks priority"
	// priority is its own base form: a query word, never added again.
	th := &fakeThesaurus{bases: map[string][]string{"tasks": {"task"}, "priority": {"priority"}}}
	without := vocab.NewStats(3, map[string]int{"tasks": 2, "priority": 1})
	with := vocab.NewStats(3, map[string]int{"tasks": 2, "task": 1, "priority": 1})
	for _, tc := range []struct {
		name   string
		stats  *vocab.Stats
		weight float64
		want   bool
	}{
		{"namespace lacks it, related words unsearched", without, 0, false},
		{"namespace lacks it, related words searched", without, 0.5, true},
		{"namespace holds it, related words unsearched", with, 0, true},
		{"namespace holds it, related words searched", with, 0.5, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newExpansion(query)
			expandSynonyms(e, query, tc.stats, th, Retrieval{SynonymExpansion: true, RelatedWeight: tc.weight})
			added := addedWords(t, e.text(query), query)
			if got := countWord(added, "task"); tc.want && got != synonymTimes || !tc.want && got != 0 {
				t.Errorf("task appears %d times in %q, want %v at weight %.1f", got, added, tc.want, synonymWeight)
			}
			if slices.ContainsFunc(e.terms, func(tm term) bool { return tm.word == "priority" || tm.word == "tasks" }) {
				t.Errorf("a query word was added again: %+v", e.terms)
			}
		})
	}
}

// The thesaurus is asked for Retrieval.SynonymSenses senses of each
// content word (stopwords are not looked up), and for one when the
// setting is unset.
func TestSynonymExpansionSenses(t *testing.T) {
	stats := vocab.NewStats(1, map[string]int{"x": 1})
	for _, tc := range []struct{ senses, want int }{{0, 1}, {1, 1}, {3, 3}} {
		th := &fakeThesaurus{}
		e := newExpansion("the urgent tasks")
		expandSynonyms(e, "the urgent tasks", stats, th, Retrieval{SynonymExpansion: true, SynonymSenses: tc.senses})
		if !slices.Equal(th.senses, []int{tc.want, tc.want}) {
			t.Errorf("SynonymSenses %d: thesaurus asked for senses %v, want %d for each of urgent and tasks",
				tc.senses, th.senses, tc.want)
		}
	}
}
