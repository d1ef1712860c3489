package eval

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Passage is one paragraph of a corpus file, a candidate answer.
type Passage struct {
	Doc  string // file name inside the corpus directory
	N    int    // paragraph number in the file, from 0
	Text string
}

// minPassageWords keeps headings, one-line fragments and tiny lists out
// of the sample: a question needs something to be about.
const minPassageWords = 20

// Passages splits every Markdown file of dir (in name order) into
// paragraphs (blank-line separated), leaving out headings, code (fenced or
// indented) and paragraphs under minPassageWords words.
func Passages(dir string) ([]Passage, error) {
	names, err := filepath.Glob(filepath.Join(dir, "*.md"))
	if err != nil {
		return nil, err
	}
	slices.Sort(names)
	var out []Passage
	for _, path := range names {
		b, err := os.ReadFile(path)
		if err != nil {
			return nil, err
		}
		doc := filepath.Base(path)
		for i, p := range paragraphs(string(b)) {
			out = append(out, Passage{Doc: doc, N: i, Text: p})
		}
	}
	return out, nil
}

// paragraphs returns the prose paragraphs of a Markdown text.
func paragraphs(text string) []string {
	var out []string
	inFence := false
	for _, block := range strings.Split(text, "\n\n") {
		t := strings.TrimSpace(block)
		fences := strings.Count(t, "```")
		if inFence || strings.HasPrefix(t, "```") {
			inFence = (fences%2 == 1) != inFence
			continue
		}
		if fences%2 == 1 {
			inFence = true
		}
		if t == "" || strings.HasPrefix(t, "#") || strings.HasPrefix(block, "    ") || strings.HasPrefix(block, "\t") {
			continue
		}
		if len(strings.Fields(t)) >= minPassageWords {
			out = append(out, t)
		}
	}
	return out
}

// Sample picks n passages at random with a fixed seed, at most one per
// paragraph, in the order drawn: the same corpus and seed always give the
// same sample.
func Sample(ps []Passage, n int, seed uint64) []Passage {
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	idx := r.Perm(len(ps))
	out := make([]Passage, 0, min(n, len(ps)))
	for _, i := range idx[:min(n, len(ps))] {
		out = append(out, ps[i])
	}
	return out
}
