package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"ragd/internal/eval"
)

type client struct{ url, prefix, token string }

func clientFlags(fs *flag.FlagSet) *client {
	c := &client{}
	fs.StringVar(&c.url, "url", "http://127.0.0.1:8000", "ragd's base URL")
	fs.StringVar(&c.prefix, "prefix", "suite", "namespaces are <prefix>-<corpus>")
	fs.StringVar(&c.token, "token", os.Getenv("RAGD_AUTH_API_KEY"), "bearer token")
	return c
}

func (c *client) searcher(corpus, mode string) *eval.HTTPSearcher {
	return &eval.HTTPSearcher{BaseURL: c.url, KBName: c.prefix + "-" + corpus, Mode: mode, Token: c.token}
}

func signalContext(timeout time.Duration) (context.Context, context.CancelFunc) {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	ctx, cancel := context.WithTimeout(ctx, timeout)
	return ctx, func() { cancel(); stop() }
}

// builtCorpora are the corpora build wrote into dir, in report order.
func builtCorpora(dir string) []string {
	var out []string
	for _, c := range eval.Corpora {
		if st, err := os.Stat(filepath.Join(dir, c.Name)); err == nil && st.IsDir() {
			out = append(out, c.Name)
		}
	}
	return out
}

func cmdIndex(args []string) error {
	fs := flag.NewFlagSet("index", flag.ContinueOnError)
	c := clientFlags(fs)
	dir := fs.String("dir", "", "directory build wrote (as ragd sees it)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	abs, err := filepath.Abs(*dir)
	if err != nil {
		return err
	}
	ctx, stop := signalContext(60 * time.Minute)
	defer stop()
	for _, name := range builtCorpora(abs) {
		start := time.Now()
		s := c.searcher(name, "")
		idx, err := s.IndexDirectory(ctx, filepath.Join(abs, name))
		if err != nil {
			return fmt.Errorf("index %s: %w", name, err)
		}
		fmt.Fprintf(os.Stderr, "evalsuite index: %s: %d files, %d chunks into %s in %s\n",
			name, idx.FilesTotal, idx.Chunks, s.KBName, time.Since(start).Round(time.Millisecond))
	}
	return nil
}

func cmdRun(args []string) error {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	c := clientFlags(fs)
	dir := fs.String("dir", "", "directory build wrote (which corpora to run)")
	sets := fs.String("sets", "internal/eval/testdata/corpora", "directory of <corpus>.jsonl question sets")
	label := fs.String("label", "", "name of this configuration in the results")
	mode := fs.String("mode", "", "search mode (default: ragd's)")
	budget := fs.Int("budget", 1280, "tokens of returned text for recall@budget (5 chunks of 256)")
	results := fs.String("results", "", "append the records to this JSONL file")
	conc := fs.Int("concurrency", 4, "questions in flight")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *label == "" {
		return fmt.Errorf("run: --label is required")
	}
	ctx, stop := signalContext(30 * time.Minute)
	defer stop()
	var all []eval.QuestionRecord
	for _, name := range builtCorpora(*dir) {
		qrs, err := runCorpus(ctx, c, name, *sets, *label, *mode, *budget, *conc)
		if err != nil {
			return err
		}
		all = append(all, qrs...)
	}
	if len(all) == 0 {
		return eval.ErrNoCorpus
	}
	printRecords(os.Stdout, *label, eval.ScoreRecords(all))
	if *results != "" {
		return appendRecords(*results, all)
	}
	return nil
}

func runCorpus(ctx context.Context, c *client, name, sets, label, mode string, budget, conc int) ([]eval.QuestionRecord, error) {
	f, err := os.Open(filepath.Join(sets, name+".jsonl"))
	if err != nil {
		return nil, err
	}
	qs, err := eval.LoadQuestions(f)
	f.Close()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	s := c.searcher(name, mode)
	cs, err := s.ExportChunks(ctx)
	if err != nil {
		return nil, err
	}
	out, err := eval.RunSuite(ctx, s, qs, eval.NewChunks(cs), budget, conc)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	qrs := make([]eval.QuestionRecord, len(qs))
	for i, q := range qs {
		qrs[i] = eval.QuestionRecord{Label: label, Corpus: name, ID: q.ID, Kind: q.Kind, Outcome: out[i]}
	}
	return qrs, nil
}

func appendRecords(path string, recs []eval.QuestionRecord) error {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	enc := json.NewEncoder(f)
	for _, r := range recs {
		if err := enc.Encode(r); err != nil {
			f.Close()
			return err
		}
	}
	return f.Close()
}

// printRecords writes one table per corpus (split × kind) and the mean
// over corpora per split and kind.
func printRecords(w io.Writer, label string, recs []eval.Record) {
	fmt.Fprintf(w, "== %s\n", label)
	head := fmt.Sprintf("%-8s %-6s %-11s %4s %6s %6s %6s %6s | %6s %6s %6s  (recall within the token budget: matched chunk, +neighbours, whole section)\n",
		"corpus", "split", "kind", "n", "R@1", "R@5", "R@10", "MRR", "B:none", "B:nbr", "B:sect")
	fmt.Fprint(w, head)
	row := func(r eval.Record) {
		fmt.Fprintf(w, "%-8s %-6s %-11s %4d %6.3f %6.3f %6.3f %6.3f | %6.3f %6.3f %6.3f\n", r.Corpus, r.Split, r.Kind, r.N,
			r.Recall1, r.Recall5, r.Recall10, r.MRR, r.Budget[eval.ExpandNone], r.Budget[eval.ExpandNeighbours], r.Budget[eval.ExpandSection])
	}
	for _, r := range recs {
		row(r)
	}
	for _, m := range eval.MeanOverCorpora(recs) {
		row(m)
	}
	fmt.Fprintln(w)
}
