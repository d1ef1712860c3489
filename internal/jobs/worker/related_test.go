package worker

import (
	"slices"
	"testing"

	"ragd"
)

// fakeThesaurus relates each word to a fixed list and records what it was
// asked: the word and how many senses.
type fakeThesaurus struct {
	related map[string][]string
	asked   []string
	senses  []int
}

func (f *fakeThesaurus) Related(word string, senses int) []string {
	f.asked = append(f.asked, word)
	f.senses = append(f.senses, senses)
	return f.related[word]
}

func (f *fakeThesaurus) BaseForms(word string) []string { return []string{word} }

var _ ragd.Thesaurus = (*fakeThesaurus)(nil)

// The related words come back sorted, space-separated and each once, even
// when several of the chunk's words lend the same one, and from the heading
// trail as well as the body.
func TestRelatedWordsSortedAndDeduplicated(t *testing.T) {
	th := &fakeThesaurus{related: map[string][]string{
		"priority":   {"precedence", "antecedence", "urgency"},
		"urgency":    {"precedence", "imperativeness"},
		"scheduling": {"programming"},
	}}
	c := ragd.Chunk{Path: "Scheduling", Text: "Priority, then urgency, then priority again."}
	got := relatedWords(c, th)
	if want := "antecedence imperativeness precedence programming"; got != want {
		t.Fatalf("relatedWords = %q, want %q", got, want)
	}
}

// A related word the chunk already contains, in its heading trail or its
// body and in any case, is never added: BM25 already matches it there.
func TestRelatedWordsOmitTheChunksOwnWords(t *testing.T) {
	th := &fakeThesaurus{related: map[string][]string{
		"priority": {"precedence", "rank", "urgency"},
		"rank":     {"priority", "status"},
	}}
	c := ragd.Chunk{Path: "Precedence rules", Text: "Every task has a PRIORITY and an Urgency; rank decides."}
	got := relatedWords(c, th)
	if got != "status" {
		t.Fatalf("relatedWords = %q, want %q", got, "status")
	}
}

// Stopwords, words shorter than three letters and numbers neither start
// the list (the thesaurus is not even asked about them) nor join it.
func TestRelatedWordsSkipStopwordsShortWordsAndNumbers(t *testing.T) {
	th := &fakeThesaurus{related: map[string][]string{
		"the":     {"definite"},
		"ox":      {"bullock"},
		"2024":    {"year"},
		"hundred": {"100", "which", "go", "c", "century"},
	}}
	c := ragd.Chunk{Path: "The ox", Text: "the ox pulled a hundred carts in 2024"}
	got := relatedWords(c, th)
	if got != "century" {
		t.Errorf("relatedWords = %q, want %q", got, "century")
	}
	for _, w := range []string{"the", "ox", "2024", "a", "in"} {
		if slices.Contains(th.asked, w) {
			t.Errorf("the thesaurus was asked about %q", w)
		}
	}
	if !slices.Contains(th.asked, "hundred") || !slices.Contains(th.asked, "carts") {
		t.Errorf("content words not looked up: asked %v", th.asked)
	}
}

// Every look-up asks for relatedSenses senses, the most frequent only.
func TestRelatedWordsAskForRelatedSenses(t *testing.T) {
	th := &fakeThesaurus{related: map[string][]string{"priority": {"precedence"}}}
	relatedWords(ragd.Chunk{Path: "Tasks", Text: "priority and urgency"}, th)
	if len(th.senses) == 0 {
		t.Fatal("the thesaurus was never asked")
	}
	for i, n := range th.senses {
		if n != relatedSenses {
			t.Errorf("%q asked with %d senses, want relatedSenses (%d)", th.asked[i], n, relatedSenses)
		}
	}
}

// A chunk nothing relates to gets no related words: an empty string, not
// stray separators.
func TestRelatedWordsEmptyWhenNothingRelates(t *testing.T) {
	cases := map[string]struct {
		th *fakeThesaurus
		c  ragd.Chunk
	}{
		"unknown words":  {&fakeThesaurus{}, ragd.Chunk{Path: "Intro", Text: "priority and urgency"}},
		"only own words": {&fakeThesaurus{related: map[string][]string{"priority": {"urgency"}, "urgency": {"priority"}}}, ragd.Chunk{Text: "priority and urgency"}},
		"only skipped":   {&fakeThesaurus{related: map[string][]string{"priority": {"the", "an", "which", "42", "100"}}}, ragd.Chunk{Text: "priority"}},
		"empty chunk":    {&fakeThesaurus{related: map[string][]string{"priority": {"urgency"}}}, ragd.Chunk{}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := relatedWords(tc.c, tc.th); got != "" {
				t.Fatalf("relatedWords = %q, want empty", got)
			}
		})
	}
}
