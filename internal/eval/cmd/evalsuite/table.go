package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strings"

	"ragd/internal/eval"
)

// defaultCompare are the rule's comparisons: technique against the
// configuration it changes one thing of. "label#mode" reads recall within
// the token budget with that expansion mode instead of recall@5.
const defaultCompare = "hybrid:bm25,bm25+stem:bm25,bm25+syn:bm25,hybrid+stem:hybrid,hybrid+syn:hybrid," +
	"hybrid+stem+syn:hybrid,hybrid+wordnbr:hybrid,hybrid-a0.1:hybrid,hybrid-a0.2:hybrid,hybrid-a0.4:hybrid,hybrid-a0.5:hybrid," +
	"hybrid-c128#none:hybrid#none,hybrid-c384#none:hybrid#none,hybrid-c512#none:hybrid#none," +
	"hybrid#neighbours:hybrid#none,hybrid#section:hybrid#none," +
	"hybrid-c128#neighbours:hybrid#none,hybrid-c128#section:hybrid#none," +
	"hybrid-c384:bm25-c384,bm25-c384+syn:bm25-c384,hybrid-c384+syn:hybrid-c384,hybrid-c384+stem+syn:hybrid-c384," +
	"hybrid-c384#neighbours:hybrid-c384#none,hybrid-c384#section:hybrid-c384#none"

func cmdTable(args []string) error {
	fs := flag.NewFlagSet("table", flag.ContinueOnError)
	path := fs.String("results", "", "JSONL written by run --results")
	compare := fs.String("compare", defaultCompare, "technique:baseline pairs the rule decides")
	if err := fs.Parse(args); err != nil {
		return err
	}
	recs, err := readRecords(*path)
	if err != nil {
		return err
	}
	t := newTable(recs)
	t.recallTable(os.Stdout)
	t.mrrTable(os.Stdout)
	t.kindTable(os.Stdout)
	t.budgetTable(os.Stdout)
	t.rule(os.Stdout, strings.Split(*compare, ","))
	return nil
}

func readRecords(path string) ([]eval.Record, error) {
	qrs, err := readQuestionRecords(path)
	if err != nil {
		return nil, err
	}
	return eval.ScoreRecords(qrs), nil
}

func readQuestionRecords(path string) ([]eval.QuestionRecord, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var recs []eval.QuestionRecord
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for sc.Scan() {
		var r eval.QuestionRecord
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			return nil, err
		}
		recs = append(recs, r)
	}
	return recs, sc.Err()
}

type key struct{ label, corpus, split, kind string }

type table struct {
	labels, corpora []string
	recs            map[key]eval.Record
}

func newTable(recs []eval.Record) *table {
	t := &table{recs: map[key]eval.Record{}}
	recs = append(recs, eval.MeanOverCorpora(recs)...)
	for _, r := range recs {
		if !slices.Contains(t.labels, r.Label) {
			t.labels = append(t.labels, r.Label)
		}
		if r.Corpus != "mean" && !slices.Contains(t.corpora, r.Corpus) {
			t.corpora = append(t.corpora, r.Corpus)
		}
		t.recs[key{r.Label, r.Corpus, r.Split, r.Kind}] = r
	}
	return t
}

// metric reads "label" (recall@5) or "label#mode" (recall within budget).
func (t *table) metric(spec, corpus, split, kind string) (float64, int, bool) {
	label, mode, budget := strings.Cut(spec, "#")
	r, ok := t.recs[key{label, corpus, split, kind}]
	if !ok {
		return 0, 0, false
	}
	if budget {
		return r.Budget[mode], r.N, true
	}
	return r.Recall5, r.N, true
}

func (t *table) recallTable(w io.Writer) {
	t.corpusTable(w, "recall@5", func(r eval.Record) float64 { return r.Recall5 })
}

// mrrTable is recallTable for the mean reciprocal rank (top 10).
func (t *table) mrrTable(w io.Writer) {
	t.corpusTable(w, "MRR", func(r eval.Record) float64 { return r.MRR })
}

// corpusTable prints one measure of all questions per configuration,
// corpus and split.
func (t *table) corpusTable(w io.Writer, name string, measure func(eval.Record) float64) {
	fmt.Fprintf(w, "\n%s, all questions (dev / test)\n", name)
	fmt.Fprint(w, "| configuration |")
	for _, c := range append(slices.Clone(t.corpora), "mean") {
		fmt.Fprintf(w, " %s dev | %s test |", c, c)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "|---"+strings.Repeat("|---", 2*len(t.corpora)+2)+"|")
	for _, l := range t.labels {
		fmt.Fprintf(w, "| %s |", l)
		for _, c := range append(slices.Clone(t.corpora), "mean") {
			for _, sp := range []string{eval.SplitDev, eval.SplitTest} {
				fmt.Fprintf(w, " %.3f |", measure(t.recs[key{l, c, sp, "all"}]))
			}
		}
		fmt.Fprintln(w)
	}
}

func (t *table) kindTable(w io.Writer) {
	fmt.Fprintln(w, "\nmean over corpora, test split: per kind, and all")
	fmt.Fprintln(w, "| configuration | kw R@1 | kw R@5 | para R@1 | para R@5 | para R@10 | all R@1 | all R@5 | all R@10 | all MRR | p50 ms |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|---|---|---|")
	for _, l := range t.labels {
		kw := t.recs[key{l, "mean", eval.SplitTest, eval.KindKeyword}]
		pa := t.recs[key{l, "mean", eval.SplitTest, eval.KindParaphrase}]
		all := t.recs[key{l, "mean", eval.SplitTest, "all"}]
		fmt.Fprintf(w, "| %s | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f | %.1f |\n", l,
			kw.Recall1, kw.Recall5, pa.Recall1, pa.Recall5, pa.Recall10, all.Recall1, all.Recall5, all.Recall10, all.MRR, all.LatencyP50ms)
	}
}

func (t *table) budgetTable(w io.Writer) {
	fmt.Fprintln(w, "\nrecall within the token budget, mean over corpora (dev / test), and mean tokens returned (test)")
	fmt.Fprintln(w, "| configuration | matched dev | matched test | +neighbours dev | +neighbours test | section dev | section test | tokens matched/nbr/sect |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|")
	for _, l := range t.labels {
		d := t.recs[key{l, "mean", eval.SplitDev, "all"}]
		s := t.recs[key{l, "mean", eval.SplitTest, "all"}]
		fmt.Fprintf(w, "| %s | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f | %.0f/%.0f/%.0f |\n", l,
			d.Budget[eval.ExpandNone], s.Budget[eval.ExpandNone], d.Budget[eval.ExpandNeighbours], s.Budget[eval.ExpandNeighbours],
			d.Budget[eval.ExpandSection], s.Budget[eval.ExpandSection],
			s.Tokens[eval.ExpandNone], s.Tokens[eval.ExpandNeighbours], s.Tokens[eval.ExpandSection])
	}
}

// rule applies the defaults rule (docs/RETRIEVAL.md) to each pair: on only if the mean
// test-split recall rises and no corpus's test recall falls by more than
// one question in 50 (0.02).
func (t *table) rule(w io.Writer, pairs []string) {
	fmt.Fprintln(w, "\nthe rule (test split): on only if the mean rises and no corpus falls by more than 0.02 (1 question in 50)")
	fmt.Fprint(w, "| technique | baseline | Δ mean dev | Δ mean test |")
	for _, c := range t.corpora {
		fmt.Fprintf(w, " Δ %s test (questions) |", c)
	}
	fmt.Fprintln(w, " decision |")
	fmt.Fprintln(w, "|---|---|---|---|"+strings.Repeat("---|", len(t.corpora))+"---|")
	for _, p := range pairs {
		tech, base, ok := strings.Cut(p, ":")
		if !ok {
			continue
		}
		if _, _, ok := t.metric(tech, "mean", eval.SplitTest, "all"); !ok {
			continue
		}
		delta := func(c, sp string) (float64, int) {
			a, n, _ := t.metric(tech, c, sp, "all")
			b, _, _ := t.metric(base, c, sp, "all")
			return a - b, int(math.Round((a - b) * float64(n)))
		}
		dd, _ := delta("mean", eval.SplitDev)
		dt, _ := delta("mean", eval.SplitTest)
		fmt.Fprintf(w, "| %s | %s | %+.3f | %+.3f |", tech, base, dd, dt)
		on := dt > 0
		for _, c := range t.corpora {
			d, q := delta(c, eval.SplitTest)
			fmt.Fprintf(w, " %+.3f (%+d) |", d, q)
			if d < -0.02-1e-9 {
				on = false
			}
		}
		verdict := "off"
		if on {
			verdict = "**on**"
		}
		fmt.Fprintf(w, " %s |\n", verdict)
	}
}
