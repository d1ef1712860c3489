package eval

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
)

func TestSplitsFixedAndStratified(t *testing.T) {
	var qs []Question
	for i := range 101 {
		kind := KindKeyword
		if i%2 == 1 {
			kind = KindParaphrase
		}
		qs = append(qs, Question{ID: fmt.Sprintf("q-%02d", i), Kind: kind})
	}
	a := Splits(qs)
	rev := slices.Clone(qs)
	slices.Reverse(rev)
	if b := Splits(rev); fmt.Sprint(a) != fmt.Sprint(b) {
		t.Error("the split depends on the order of the file")
	}
	n := map[[2]string]int{}
	for _, q := range qs {
		n[[2]string{a[q.ID], q.Kind}]++
	}
	for _, k := range []string{KindKeyword, KindParaphrase} {
		if d := n[[2]string{SplitDev, k}] - n[[2]string{SplitTest, k}]; d < 0 || d > 1 {
			t.Errorf("%s: dev %d, test %d: want equal halves", k, n[[2]string{SplitDev, k}], n[[2]string{SplitTest, k}])
		}
	}
	// Not the id's parity (the old FNV low bit followed the last digit).
	same := 0
	for i := range 50 {
		if a[fmt.Sprintf("q-%02d", 2*i)] == a[fmt.Sprintf("q-%02d", 2*i+2)] {
			same++
		}
	}
	if same == 0 || same == 50 {
		t.Errorf("splits of consecutive keyword ids agree %d of 50 times: not mixed", same)
	}
}

func TestDocName(t *testing.T) {
	for in, want := range map[string]string{
		"file:///tmp/x/corpora/npm/commands-npm-ci.md": "commands-npm-ci.md",
		"file:///tmp/a%20b/ls.md":                      "ls.md",
		"/plain/path/tar.md":                           "tar.md",
	} {
		if got := DocName(in); got != want {
			t.Errorf("DocName(%q) = %q, want %q", in, got, want)
		}
	}
}

// chunksOf builds two documents: a.md with sections S1 (chunks 0-2) and
// S2 (3-4), b.md with one chunk; every chunk is 10 words.
func chunksOf() *Chunks {
	var cs []Chunk
	text := func(s string) string { return strings.TrimSpace(strings.Repeat(s+" ", 10)) }
	for i, p := range []string{"S1", "S1", "S1", "S2", "S2"} {
		cs = append(cs, Chunk{ID: fmt.Sprintf("a%d", i), DocumentID: "A", Source: "file:///c/a.md", Index: i, Path: p, Text: text(fmt.Sprintf("a%dw", i))})
	}
	cs = append(cs, Chunk{ID: "b0", DocumentID: "B", Source: "file:///c/b.md", Index: 0, Path: "T", Text: text("b0w")})
	return NewChunks(cs)
}

func ids(cs []Chunk) string {
	var s []string
	for _, c := range cs {
		s = append(s, c.ID)
	}
	return strings.Join(s, ",")
}

func TestChunksExpand(t *testing.T) {
	c := chunksOf()
	for _, tc := range []struct{ mode, id, want string }{
		{ExpandNone, "a1", "a1"},
		{ExpandNeighbours, "a1", "a0,a1,a2"},
		{ExpandNeighbours, "a0", "a0,a1"},
		{ExpandNeighbours, "a4", "a3,a4"},
		{ExpandNeighbours, "b0", "b0"},
		{ExpandSection, "a1", "a0,a1,a2"},
		{ExpandSection, "a2", "a0,a1,a2"},
		{ExpandSection, "a3", "a3,a4"},
		{ExpandSection, "nope", ""},
	} {
		if got := ids(c.Expand(tc.mode, tc.id)); got != tc.want {
			t.Errorf("Expand(%s, %s) = %s, want %s", tc.mode, tc.id, got, tc.want)
		}
	}
}

// TestWithinBudget: the answer in a neighbour of the second result counts
// only for the expansions, and only while the budget lasts; chunks are
// returned once.
func TestWithinBudget(t *testing.T) {
	c := chunksOf()
	q := Question{ID: "q", MustContain: []string{"a2w a2w"}, Doc: "a.md"}
	docs := map[string]bool{"a.md": true}
	rs := []Result{{ID: "b0", Source: "file:///c/b.md"}, {ID: "a1", Source: "file:///c/a.md"}}
	cases := []struct {
		mode   string
		budget int
		hit    bool
		tokens int
	}{
		{ExpandNone, 100, false, 20},
		{ExpandNeighbours, 100, true, 40},
		{ExpandNeighbours, 25, false, 20}, // a0 would pass the budget
		{ExpandSection, 100, true, 40},
		{ExpandNone, 5, false, 10}, // the first result is always returned
	}
	for _, tc := range cases {
		hit, tokens := withinBudget(q, docs, rs, c, tc.mode, tc.budget)
		if hit != tc.hit || tokens != tc.tokens {
			t.Errorf("%s budget %d: hit %v tokens %d, want %v %d", tc.mode, tc.budget, hit, tokens, tc.hit, tc.tokens)
		}
	}
	// The same words from another document are not the answer.
	q.Doc = "b.md"
	if hit, _ := withinBudget(q, map[string]bool{"b.md": true}, rs, c, ExpandSection, 100); hit {
		t.Error("a quote found in a.md counted for a question about b.md")
	}
}

type resultSearcher map[string][]Result

func (f resultSearcher) SearchResults(_ context.Context, q string, _ int) ([]Result, error) {
	return f[q], nil
}

func TestRunSuiteAndScores(t *testing.T) {
	c := chunksOf()
	qs := []Question{
		{ID: "k1", Query: "one", Kind: KindKeyword, Doc: "a.md", MustContain: []string{"a3w"}},
		{ID: "p1", Query: "two", Kind: KindParaphrase, Doc: "b.md", MustContain: []string{"b0w"}},
	}
	s := resultSearcher{
		"one": {{ID: "a0", Source: "file:///c/a.md", Text: "a0w"}, {ID: "a3", Source: "file:///c/a.md", Text: "a3w a3w"}},
		"two": {{ID: "a0", Source: "file:///c/a.md", Text: "a0w"}},
	}
	out, err := RunSuite(context.Background(), s, qs, c, 100, 2)
	if err != nil {
		t.Fatal(err)
	}
	if out[0].Rank != 2 || out[1].Rank != 0 {
		t.Fatalf("ranks %d %d, want 2 0", out[0].Rank, out[1].Rank)
	}
	recs := ScoreSuite("x", "c", qs, out)
	var all []Record
	for _, r := range recs {
		if r.Kind == "all" {
			all = append(all, r)
		}
	}
	n := 0
	for _, r := range all {
		n += r.N
	}
	if n != 2 {
		t.Errorf("the all-kinds records cover %d questions, want 2", n)
	}
	mean := MeanOverCorpora(append(recs, Record{Label: "x", Corpus: "d", Split: recs[0].Split, Kind: recs[0].Kind,
		SuiteScores: SuiteScores{Scores: Scores{N: 4, Recall5: 1}, Budget: map[string]float64{}, Tokens: map[string]float64{}}}))
	for _, m := range mean {
		if m.Split == recs[0].Split && m.Kind == recs[0].Kind {
			if want := (recs[0].Recall5 + 1) / 2; m.Recall5 != want {
				t.Errorf("mean R@5 %v, want %v (each corpus weighs the same)", m.Recall5, want)
			}
		}
	}
	// A strict check refuses a question whose quote is in no chunk of its doc.
	bad := []Question{{ID: "gone", Query: "x", Kind: KindKeyword, Doc: "a.md", MustContain: []string{"not there"}}}
	if _, err := AnswerDocs(bad, c, true); err == nil || !strings.Contains(err.Error(), "gone") {
		t.Errorf("strict AnswerDocs of a missing quote: %v, want an error naming the question", err)
	}
	if _, err := AnswerDocs(bad, c, false); err != nil {
		t.Errorf("lenient AnswerDocs: %v", err)
	}
}

func TestManMarkdown(t *testing.T) {
	page := "LS(1)   User Commands   LS(1)\n\nNAME\n       ls - list directory contents\n\n" +
		"DESCRIPTION\n       -a, --all\n              do not ignore entries starting with .\n" +
		"       1. first *step* with a_b\n\nGNU coreutils 9.1   LS(1)\n"
	md := string(ManMarkdown("ls", page))
	for _, want := range []string{"# ls(1)\n", "\n## NAME\n", "\nls - list directory contents\n", "\n## DESCRIPTION\n",
		"\n-a, --all\ndo not ignore entries starting with .\n", "1\\. first \\*step\\* with a\\_b"} {
		if !strings.Contains(md, want) {
			t.Errorf("ManMarkdown lacks %q:\n%s", want, md)
		}
	}
	if strings.Contains(md, "User Commands") || strings.Contains(md, "coreutils") {
		t.Errorf("the running header or footer was kept:\n%s", md)
	}
}

func TestSampleDeterministic(t *testing.T) {
	var ps []Passage
	for i := range 100 {
		ps = append(ps, Passage{Doc: "d", N: i})
	}
	a, b := Sample(ps, 10, 17), Sample(ps, 10, 17)
	if fmt.Sprint(a) != fmt.Sprint(b) {
		t.Error("two samples with one seed differ")
	}
	if fmt.Sprint(a) == fmt.Sprint(Sample(ps, 10, 18)) {
		t.Error("another seed gave the same sample")
	}
	if got := len(Sample(ps, 500, 1)); got != 100 {
		t.Errorf("sampling more than there are: %d, want 100", got)
	}
	text := "# T\n\nshort one\n\n```\ncode " + strings.Repeat("w ", 30) + "\n```\n\n" + strings.Repeat("word ", 25)
	if got := paragraphs(text); len(got) != 1 || !strings.HasPrefix(got[0], "word") {
		t.Errorf("paragraphs = %q, want only the prose paragraph", got)
	}
}

func TestLoadQuestionsDocAlt(t *testing.T) {
	qs, err := LoadQuestions(strings.NewReader(`{"id":"a","query":"q","alt":"other","doc":"x.md","kind":"keyword","must_contain":["abc def"]}`))
	if err != nil || qs[0].Doc != "x.md" || qs[0].Alt != "other" {
		t.Fatalf("LoadQuestions = %+v, %v", qs, err)
	}
}
