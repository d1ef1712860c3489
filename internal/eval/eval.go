// Package eval measures ragd's retrieval on a question set: recall@1/5/10
// and MRR, overall and per question kind, with the misses and the search
// latency. The set is JSONL; testdata/devset.jsonl is the development set
// over the package documentation of Go's standard library, which
// BuildCorpus extracts from a GOROOT.
package eval

import (
	"bufio"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"golang.org/x/sync/errgroup"
)

// The question kinds.
const (
	// KindParaphrase questions are asked in a user's own words and avoid the
	// distinctive terms of the passage that answers them.
	KindParaphrase = "paraphrase"
	// KindKeyword questions use the document's own terms.
	KindKeyword = "keyword"
)

// TopK is how many results Run asks for per question.
const TopK = 10

// Question is one line of a question set.
type Question struct {
	ID    string `json:"id"`
	Query string `json:"query"`
	// MustContain are exact substrings of the passage that answers the
	// question; a result containing any of them (case and whitespace folded)
	// is a hit.
	MustContain []string `json:"must_contain"`
	Kind        string   `json:"kind"`
	// Queries are other phrasings of the question (e.g. its other form,
	// keyword or paraphrase), sent as rag_search's queries when the
	// Searcher takes them.
	Queries []string `json:"queries,omitempty"`
	// Doc is the corpus file (name inside the corpus directory) holding the
	// answer; when set, only results from that file (or from another file
	// holding the same quote) are hits. Optional: devset.jsonl has none.
	Doc string `json:"doc,omitempty"`
	// Alt is the question in its other form (a keyword question's
	// paraphrase, or the reverse), where one came naturally.
	Alt string `json:"alt,omitempty"`
}

// LoadQuestions reads a JSONL question set: one JSON object per line, blank
// lines skipped. Every question needs an id (unique), a query, at least one
// non-blank must_contain string and a kind of paraphrase or keyword;
// unknown fields are errors, so a misspelt field does not pass silently.
func LoadQuestions(r io.Reader) ([]Question, error) {
	var qs []Question
	seen := map[string]int{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for line := 1; sc.Scan(); line++ {
		text := strings.TrimSpace(sc.Text())
		if text == "" {
			continue
		}
		dec := json.NewDecoder(strings.NewReader(text))
		dec.DisallowUnknownFields()
		var q Question
		if err := dec.Decode(&q); err != nil {
			return nil, fmt.Errorf("eval: line %d: %w", line, err)
		}
		if dec.More() {
			return nil, fmt.Errorf("eval: line %d: more than one JSON value", line)
		}
		if err := q.validate(); err != nil {
			return nil, fmt.Errorf("eval: line %d: %w", line, err)
		}
		if prev, ok := seen[q.ID]; ok {
			return nil, fmt.Errorf("eval: line %d: id %q already used on line %d", line, q.ID, prev)
		}
		seen[q.ID] = line
		qs = append(qs, q)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("eval: %w", err)
	}
	if len(qs) == 0 {
		return nil, errors.New("eval: the question set is empty")
	}
	return qs, nil
}

func (q Question) validate() error {
	switch {
	case strings.TrimSpace(q.ID) == "":
		return errors.New("missing id")
	case strings.TrimSpace(q.Query) == "":
		return fmt.Errorf("question %q: missing query", q.ID)
	case len(q.MustContain) == 0:
		return fmt.Errorf("question %q: missing must_contain", q.ID)
	case q.Kind != KindParaphrase && q.Kind != KindKeyword:
		return fmt.Errorf("question %q: kind %q is not %s or %s", q.ID, q.Kind, KindParaphrase, KindKeyword)
	}
	for i, s := range q.MustContain {
		if Fold(s) == "" {
			return fmt.Errorf("question %q: must_contain[%d] is blank", q.ID, i)
		}
	}
	return nil
}

// Searcher runs one search and returns the texts of the results, best first.
type Searcher interface {
	Search(ctx context.Context, query string, topK int) ([]string, error)
}

// PhrasingsSearcher is a Searcher that also searches other phrasings of
// the query, fused with it.
type PhrasingsSearcher interface {
	SearchPhrasings(ctx context.Context, query string, queries []string, topK int) ([]string, error)
}

// search asks q through s, with its other phrasings when it has some and s
// takes them.
func search(ctx context.Context, s Searcher, q Question) ([]string, error) {
	if ps, ok := s.(PhrasingsSearcher); ok && len(q.Queries) > 0 {
		return ps.SearchPhrasings(ctx, q.Query, q.Queries, TopK)
	}
	return s.Search(ctx, q.Query, TopK)
}

// Fold lower-cases s and collapses every run of white space into one space,
// trimming both ends: the normal form Hit compares in.
func Fold(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	space := false
	for _, r := range s {
		if unicode.IsSpace(r) {
			space = b.Len() > 0
			continue
		}
		if space {
			b.WriteByte(' ')
			space = false
		}
		b.WriteRune(unicode.ToLower(r))
	}
	return b.String()
}

// Hit reports whether text contains any of mustContain, ignoring case and
// differences in white space. Blank strings never match.
func Hit(text string, mustContain []string) bool {
	ft := Fold(text)
	for _, s := range mustContain {
		if fs := Fold(s); fs != "" && strings.Contains(ft, fs) {
			return true
		}
	}
	return false
}

// Scores are the retrieval scores of a group of questions: the share whose
// first hit ranks in the top 1, 5 and 10, and the mean reciprocal rank of the
// first hit (0 for a question without a hit in the top 10).
type Scores struct {
	N        int     `json:"n"`
	Recall1  float64 `json:"recall_at_1"`
	Recall5  float64 `json:"recall_at_5"`
	Recall10 float64 `json:"recall_at_10"`
	MRR      float64 `json:"mrr"`
}

// Miss is a question whose answer did not make the top 5.
type Miss struct {
	ID    string `json:"id"`
	Kind  string `json:"kind"`
	Query string `json:"query"`
	// Rank of the first hit, 0 when none of the top 10 is a hit.
	Rank int `json:"rank"`
	// Top is the start (up to 120 characters) of the best result.
	Top string `json:"top"`
}

// Report is the outcome of a Run.
type Report struct {
	ByKind     map[string]Scores `json:"by_kind"`
	Overall    Scores            `json:"overall"`
	Misses     []Miss            `json:"misses"`
	LatencyP50 time.Duration     `json:"-"`
	LatencyP95 time.Duration     `json:"-"`
}

// MissRank is the rank past which a question counts as a miss.
const MissRank = 5

// topRunes bounds Miss.Top.
const topRunes = 120

// MarshalJSON writes the latencies in milliseconds.
func (r Report) MarshalJSON() ([]byte, error) {
	type plain Report
	return json.Marshal(struct {
		plain
		LatencyP50 float64 `json:"latency_p50_ms"`
		LatencyP95 float64 `json:"latency_p95_ms"`
	}{plain(r), ms(r.LatencyP50), ms(r.LatencyP95)})
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// outcome is one question's result.
type outcome struct {
	rank     int
	top      string
	latency  time.Duration
	answered bool // any result at all
}

// Run asks every question of qs through s (up to concurrency at once, the
// top TopK results each) and scores the answers. A failed search fails the
// run: scores over a partial set would not compare with other runs; so
// does a run in which no question got any result (a wrong namespace or an
// empty index would otherwise just score zero).
func Run(ctx context.Context, s Searcher, qs []Question, concurrency int) (Report, error) {
	if len(qs) == 0 {
		return Report{}, errors.New("eval: no questions")
	}
	out := make([]outcome, len(qs))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(max(concurrency, 1))
	for i, q := range qs {
		g.Go(func() error {
			start := time.Now()
			texts, err := search(gctx, s, q)
			if err != nil {
				return fmt.Errorf("eval: question %s: %w", q.ID, err)
			}
			o := outcome{latency: time.Since(start), answered: len(texts) > 0}
			if len(texts) > 0 {
				o.top = truncate(Fold(texts[0]), topRunes)
			}
			for rank, text := range texts[:min(len(texts), TopK)] {
				if Hit(text, q.MustContain) {
					o.rank = rank + 1
					break
				}
			}
			out[i] = o
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return Report{}, err
	}
	if !slices.ContainsFunc(out, func(o outcome) bool { return o.answered }) {
		return Report{}, errors.New("eval: no question got any result: is the corpus indexed in this namespace?")
	}
	return score(qs, out), nil
}

// score aggregates the outcomes of qs.
func score(qs []Question, out []outcome) Report {
	byKind := map[string]*acc{}
	var all acc
	rep := Report{ByKind: map[string]Scores{}}
	lat := make([]time.Duration, len(out))
	for i, q := range qs {
		o := out[i]
		lat[i] = o.latency
		all.add(o.rank)
		if byKind[q.Kind] == nil {
			byKind[q.Kind] = &acc{}
		}
		byKind[q.Kind].add(o.rank)
		if o.rank == 0 || o.rank > MissRank {
			rep.Misses = append(rep.Misses, Miss{ID: q.ID, Kind: q.Kind, Query: q.Query, Rank: o.rank, Top: o.top})
		}
	}
	for k, a := range byKind {
		rep.ByKind[k] = a.scores()
	}
	rep.Overall = all.scores()
	slices.Sort(lat)
	rep.LatencyP50 = percentile(lat, 50)
	rep.LatencyP95 = percentile(lat, 95)
	return rep
}

type acc struct {
	n, at1, at5, at10 int
	rr                float64
}

func (a *acc) add(rank int) {
	a.n++
	if rank < 1 || rank > TopK {
		return
	}
	if rank <= 1 {
		a.at1++
	}
	if rank <= 5 {
		a.at5++
	}
	a.at10++
	a.rr += 1 / float64(rank)
}

func (a *acc) scores() Scores {
	if a.n == 0 {
		return Scores{}
	}
	n := float64(a.n)
	return Scores{N: a.n, Recall1: float64(a.at1) / n, Recall5: float64(a.at5) / n,
		Recall10: float64(a.at10) / n, MRR: a.rr / n}
}

// percentile is the nearest-rank p-th percentile of sorted.
func percentile(sorted []time.Duration, p int) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	i := (p*len(sorted)+99)/100 - 1
	return sorted[min(max(i, 0), len(sorted)-1)]
}

func truncate(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n])
}

// Print writes the report as a table (kind, n, R@1, R@5, R@10, MRR; the
// kinds in name order, then "all"), the latency, and the misses: questions
// whose first hit is below rank 5 or absent from the top 10.
func (r Report) Print(w io.Writer) {
	fmt.Fprintf(w, "%-12s %4s %6s %6s %6s %6s\n", "kind", "n", "R@1", "R@5", "R@10", "MRR")
	row := func(name string, s Scores) {
		fmt.Fprintf(w, "%-12s %4d %6.3f %6.3f %6.3f %6.3f\n", name, s.N, s.Recall1, s.Recall5, s.Recall10, s.MRR)
	}
	for _, k := range slices.Sorted(maps.Keys(r.ByKind)) {
		row(k, r.ByKind[k])
	}
	row("all", r.Overall)
	fmt.Fprintf(w, "latency p50 %s, p95 %s\n", r.LatencyP50.Round(100*time.Microsecond), r.LatencyP95.Round(100*time.Microsecond))

	misses := slices.Clone(r.Misses)
	// Worst first: not found at all, then by falling rank; then by id.
	slices.SortStableFunc(misses, func(a, b Miss) int {
		if c := cmp.Compare(missOrder(b.Rank), missOrder(a.Rank)); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
	fmt.Fprintf(w, "\nmisses (answer not in the top %d): %d of %d\n", MissRank, len(misses), r.Overall.N)
	for _, m := range misses {
		rank := "  -"
		if m.Rank > 0 {
			rank = fmt.Sprintf("%3d", m.Rank)
		}
		fmt.Fprintf(w, "  rank %s  %-10s %s: %s\n", rank, m.Kind, m.ID, m.Query)
		fmt.Fprintf(w, "             top: %q\n", m.Top)
	}
}

func missOrder(rank int) int {
	if rank == 0 {
		return TopK + 1
	}
	return rank
}
