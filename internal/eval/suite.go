package eval

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"net/url"
	"path"
	"slices"
	"strings"
	"time"

	"golang.org/x/sync/errgroup"
)

// The two halves of every corpus's question set.
const (
	SplitDev  = "dev"  // tuned on
	SplitTest = "test" // decided on, never tuned on
)

// Splits assigns each question of one corpus's set its fixed half,
// stratified by kind: within each kind the questions are ordered by the
// SHA-256 of their id and dealt alternately to dev and test, so both
// halves hold the same mix of paraphrased and keyword questions (a plain
// hash of ~25 ids per kind is easily 8 against 16) and the assignment
// depends on the ids alone, not on the file's order.
func Splits(qs []Question) map[string]string {
	byKind := map[string][]string{}
	for _, q := range qs {
		byKind[q.Kind] = append(byKind[q.Kind], q.ID)
	}
	out := make(map[string]string, len(qs))
	for _, ids := range byKind {
		slices.SortFunc(ids, func(a, b string) int {
			ha, hb := sha256.Sum256([]byte(a)), sha256.Sum256([]byte(b))
			return bytes.Compare(ha[:], hb[:])
		})
		for i, id := range ids {
			out[id] = SplitDev
			if i%2 == 1 {
				out[id] = SplitTest
			}
		}
	}
	return out
}

// SuiteTopK is how many results each suite question asks for: the most
// rag_search gives, so a budget of small expanded chunks can be filled.
const SuiteTopK = 20

// ResultSearcher runs one search and returns its results, best first.
type ResultSearcher interface {
	SearchResults(ctx context.Context, query string, topK int) ([]Result, error)
}

// DocName is the corpus file name of a result's source URI.
func DocName(source string) string {
	if u, err := url.Parse(source); err == nil && u.Path != "" {
		return path.Base(u.Path)
	}
	return path.Base(source)
}

// AnswerDocs returns, for each question, the corpus files whose chunks
// hold one of its quotes: its own doc, and others when the same passage is
// repeated there (npm repeats option descriptions in every command's
// page). A question whose doc holds none of its quotes in one chunk is
// an error when strict (the corpus changed under it, and it would
// silently score zero); otherwise its doc is accepted anyway, since at a
// small chunk size a quote may straddle two chunks, which only the
// neighbour and section expansions can return whole.
func AnswerDocs(qs []Question, chunks *Chunks, strict bool) ([]map[string]bool, error) {
	all := chunks.All()
	out := make([]map[string]bool, len(qs))
	var bad []string
	for i, q := range qs {
		docs := map[string]bool{}
		for _, ch := range all {
			if Hit(ch.Text, q.MustContain) {
				docs[DocName(ch.Source)] = true
			}
		}
		if q.Doc != "" && !docs[q.Doc] {
			bad = append(bad, q.ID)
			docs[q.Doc] = true
		}
		out[i] = docs
	}
	if len(bad) > 0 && strict {
		return nil, fmt.Errorf("eval: %d questions whose quote is in no chunk of their doc: %s", len(bad), strings.Join(bad, ", "))
	}
	return out, nil
}

// Outcome is one suite question's result.
type Outcome struct {
	Rank    int           `json:"rank"` // first hit among the matched chunks, 0 for none in the top 10
	Latency time.Duration `json:"latency_ns"`
	// Budget tells, per expansion mode, whether the answer was among the
	// chunks returned within the token budget.
	Budget map[string]bool `json:"budget"`
	// Tokens returned within the budget, per expansion mode.
	Tokens map[string]int `json:"tokens"`
}

// QuestionRecord is one line of the suite's results file: one question's
// outcome under one configuration. Tables are computed from these, so a
// different grouping never needs a new run.
type QuestionRecord struct {
	Label  string `json:"label"`
	Corpus string `json:"corpus"`
	ID     string `json:"id"`
	Kind   string `json:"kind"`
	Outcome
}

// ScoreRecords groups question records by configuration and corpus (in
// the order first seen) and scores each group with ScoreSuite.
func ScoreRecords(qrs []QuestionRecord) []Record {
	type key struct{ label, corpus string }
	var order []key
	qs := map[key][]Question{}
	outs := map[key][]Outcome{}
	for _, r := range qrs {
		k := key{r.Label, r.Corpus}
		if _, ok := qs[k]; !ok {
			order = append(order, k)
		}
		qs[k] = append(qs[k], Question{ID: r.ID, Kind: r.Kind})
		outs[k] = append(outs[k], r.Outcome)
	}
	var recs []Record
	for _, k := range order {
		recs = append(recs, ScoreSuite(k.label, k.corpus, qs[k], outs[k])...)
	}
	return recs
}

// RunSuite asks every question (up to concurrency at once) and judges
// each result list: the rank of the first hit, and for each expansion
// mode whether a hit is within budget tokens of returned text.
func RunSuite(ctx context.Context, s ResultSearcher, qs []Question, chunks *Chunks, budget, concurrency int) ([]Outcome, error) {
	docs, err := AnswerDocs(qs, chunks, false)
	if err != nil {
		return nil, err
	}
	out := make([]Outcome, len(qs))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(max(concurrency, 1))
	for i, q := range qs {
		g.Go(func() error {
			start := time.Now()
			rs, err := s.SearchResults(gctx, q.Query, SuiteTopK)
			if err != nil {
				return fmt.Errorf("eval: question %s: %w", q.ID, err)
			}
			out[i] = judge(q, docs[i], rs, chunks, budget)
			out[i].Latency = time.Since(start)
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	return out, nil
}

func isHit(q Question, docs map[string]bool, source, text string) bool {
	if q.Doc != "" && !docs[DocName(source)] {
		return false
	}
	return Hit(text, q.MustContain)
}

func judge(q Question, docs map[string]bool, rs []Result, chunks *Chunks, budget int) Outcome {
	o := Outcome{Budget: map[string]bool{}, Tokens: map[string]int{}}
	for rank, r := range rs[:min(len(rs), TopK)] {
		if isHit(q, docs, r.Source, r.Text) {
			o.Rank = rank + 1
			break
		}
	}
	for _, mode := range Expansions {
		o.Budget[mode], o.Tokens[mode] = withinBudget(q, docs, rs, chunks, mode, budget)
	}
	return o
}

// withinBudget returns the results' chunks, each widened by mode, in
// rank order, each chunk once, until the next would pass budget tokens,
// and reports whether the answer is among them (in a chunk, or across
// the boundary of two adjacent ones) and how many tokens they hold.
func withinBudget(q Question, docs map[string]bool, rs []Result, chunks *Chunks, mode string, budget int) (bool, int) {
	seen := map[string]bool{}
	used := 0
	hit := false
	for _, r := range rs {
		group := chunks.Expand(mode, r.ID)
		var texts []string
		for _, ch := range group {
			if seen[ch.ID] {
				continue
			}
			if used > 0 && used+ch.Tokens > budget {
				return hit, used
			}
			seen[ch.ID] = true
			used += ch.Tokens
			texts = append(texts, ch.Text)
		}
		if !hit && len(texts) > 0 {
			hit = isHit(q, docs, r.Source, strings.Join(texts, "\n"))
		}
	}
	return hit, used
}

// SuiteScores are one group's scores: recall@1/5/10 and MRR of the
// matched chunks, and recall within the token budget per expansion mode.
type SuiteScores struct {
	Scores
	Budget map[string]float64 `json:"recall_at_budget"`
	Tokens map[string]float64 `json:"mean_tokens"`
}

// Record is one row of the suite's results file.
type Record struct {
	Label  string `json:"label"`
	Corpus string `json:"corpus"`
	Split  string `json:"split"`
	Kind   string `json:"kind"` // paraphrase, keyword or all
	SuiteScores
	LatencyP50ms float64 `json:"latency_p50_ms"`
}

// ScoreSuite groups the outcomes by split and kind (and "all" kinds).
func ScoreSuite(label, corpus string, qs []Question, out []Outcome) []Record {
	type key struct{ split, kind string }
	groups := map[key][]int{}
	splits := Splits(qs)
	for i, q := range qs {
		sp := splits[q.ID]
		groups[key{sp, q.Kind}] = append(groups[key{sp, q.Kind}], i)
		groups[key{sp, "all"}] = append(groups[key{sp, "all"}], i)
	}
	var recs []Record
	for _, sp := range []string{SplitDev, SplitTest} {
		for _, kind := range []string{KindKeyword, KindParaphrase, "all"} {
			idx := groups[key{sp, kind}]
			if len(idx) == 0 {
				continue
			}
			recs = append(recs, record(label, corpus, sp, kind, idx, out))
		}
	}
	return recs
}

func record(label, corpus, split, kind string, idx []int, out []Outcome) Record {
	var a acc
	ss := SuiteScores{Budget: map[string]float64{}, Tokens: map[string]float64{}}
	lat := make([]time.Duration, 0, len(idx))
	for _, i := range idx {
		a.add(out[i].Rank)
		lat = append(lat, out[i].Latency)
		for _, m := range Expansions {
			if out[i].Budget[m] {
				ss.Budget[m]++
			}
			ss.Tokens[m] += float64(out[i].Tokens[m])
		}
	}
	n := float64(len(idx))
	for _, m := range Expansions {
		ss.Budget[m] /= n
		ss.Tokens[m] /= n
	}
	ss.Scores = a.scores()
	slices.Sort(lat)
	return Record{Label: label, Corpus: corpus, Split: split, Kind: kind, SuiteScores: ss,
		LatencyP50ms: ms(percentile(lat, 50))}
}

// ErrNoCorpus is returned when no corpus could be evaluated.
var ErrNoCorpus = errors.New("eval: no corpus evaluated")

// MeanOverCorpora averages the records of each (label, split, kind) over
// the corpora (each corpus weighs the same, whatever its size); the
// result's Corpus is "mean" and N the total.
func MeanOverCorpora(recs []Record) []Record {
	type key struct{ label, split, kind string }
	sum := map[key]*Record{}
	count := map[key]int{}
	var order []key
	for _, r := range recs {
		if r.Corpus == "mean" {
			continue
		}
		k := key{r.Label, r.Split, r.Kind}
		m := sum[k]
		if m == nil {
			m = &Record{Label: r.Label, Corpus: "mean", Split: r.Split, Kind: r.Kind,
				SuiteScores: SuiteScores{Budget: map[string]float64{}, Tokens: map[string]float64{}}}
			sum[k] = m
			order = append(order, k)
		}
		count[k]++
		m.N += r.N
		m.Recall1 += r.Recall1
		m.Recall5 += r.Recall5
		m.Recall10 += r.Recall10
		m.MRR += r.MRR
		m.LatencyP50ms += r.LatencyP50ms
		for _, e := range Expansions {
			m.Budget[e] += r.Budget[e]
			m.Tokens[e] += r.Tokens[e]
		}
	}
	out := make([]Record, 0, len(order))
	for _, k := range order {
		m, n := sum[k], float64(count[k])
		m.Recall1 /= n
		m.Recall5 /= n
		m.Recall10 /= n
		m.MRR /= n
		m.LatencyP50ms /= n
		for _, e := range Expansions {
			m.Budget[e] /= n
			m.Tokens[e] /= n
		}
		out = append(out, *m)
	}
	return out
}
