package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"time"

	"ragd/internal/eval"
)

const evalUsage = `usage:
  ragd eval [flags]                      run a question set against a running ragd, print recall@1/5/10 and MRR
  ragd eval corpus --out DIR [--goroot DIR]
                                         write the evaluation corpus (standard-library package docs as Markdown)
  ragd eval index --dir DIR [--url URL] [--kb_name NAME] [--token T]
                                         index DIR (inside ragd's ingest roots) and wait for the job`

// runEval implements `ragd eval`, `ragd eval corpus` and `ragd eval index`.
func runEval(args []string) error {
	err := evalCommand(args)
	if errors.Is(err, flag.ErrHelp) {
		return nil // the usage is printed
	}
	return err
}

func evalCommand(args []string) error {
	if len(args) > 0 {
		switch args[0] {
		case "corpus":
			return runEvalCorpus(args[1:])
		case "index":
			return runEvalIndex(args[1:])
		case "help":
			fmt.Println(evalUsage)
			return nil
		}
	}
	fs := flag.NewFlagSet("eval", flag.ContinueOnError)
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), evalUsage+"\n\nflags of ragd eval:")
		fs.PrintDefaults()
	}
	c := clientFlags(fs)
	set := fs.String("set", "internal/eval/testdata/devset.jsonl", "question set (JSONL)")
	mode := fs.String("mode", "hybrid", "search mode: hybrid, vector or keyword")
	concurrency := fs.Int("concurrency", 4, "questions searched at once")
	asJSON := fs.Bool("json", false, "print the report as JSON")
	timeout := fs.Duration("timeout", 10*time.Minute, "bound on the whole run")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	f, err := os.Open(*set)
	if err != nil {
		return fmt.Errorf("eval: %w", err)
	}
	qs, err := eval.LoadQuestions(f)
	f.Close()
	if err != nil {
		return fmt.Errorf("%s: %w", *set, err)
	}
	ctx, stop := evalContext(*timeout)
	defer stop()
	s := c.searcher()
	s.Mode = *mode
	rep, err := eval.Run(ctx, s, qs, *concurrency)
	if err != nil {
		return err
	}
	if *asJSON {
		return writeEvalJSON(os.Stdout, *set, s, rep)
	}
	fmt.Printf("ragd eval: %s, %d questions, kb_name %q, mode %s, %s\n", *set, len(qs), s.KBName, *mode, s.BaseURL)
	rep.Print(os.Stdout)
	return nil
}

func writeEvalJSON(w io.Writer, set string, s *eval.HTTPSearcher, rep eval.Report) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(struct {
		Set    string      `json:"set"`
		URL    string      `json:"url"`
		KBName string      `json:"kb_name"`
		Mode   string      `json:"mode"`
		Report eval.Report `json:"report"`
	}{set, s.BaseURL, s.KBName, s.Mode, rep})
}

// runEvalCorpus writes the corpus the development set is asked over.
func runEvalCorpus(args []string) error {
	fs := flag.NewFlagSet("eval corpus", flag.ContinueOnError)
	out := fs.String("out", "", "directory to write the Markdown files into (created if missing)")
	goroot := fs.String("goroot", "", "Go installation whose sources are read (default: $GOROOT, else `go env GOROOT`)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *out == "" {
		return errors.New("eval corpus: --out is required")
	}
	root := *goroot
	if root == "" {
		var err error
		if root, err = findGOROOT(); err != nil {
			return err
		}
	}
	paths, err := eval.BuildCorpus(root, *out)
	if err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "eval corpus: wrote %d files from %s into %s\n", len(paths), filepath.Join(root, "src"), *out)
	return nil
}

// runEvalIndex indexes a directory through the REST API and waits for it.
func runEvalIndex(args []string) error {
	fs := flag.NewFlagSet("eval index", flag.ContinueOnError)
	c := clientFlags(fs)
	dir := fs.String("dir", "", "directory to index, as ragd sees it (inside its ingest roots)")
	timeout := fs.Duration("timeout", 30*time.Minute, "bound on the wait")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *dir == "" {
		return errors.New("eval index: --dir is required")
	}
	abs, err := filepath.Abs(*dir)
	if err != nil {
		return err
	}
	ctx, stop := evalContext(*timeout)
	defer stop()
	start := time.Now()
	idx, err := c.searcher().IndexDirectory(ctx, abs)
	if err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "eval index: %d files, %d chunks into kb_name %q in %s (job %s)\n",
		idx.FilesTotal, idx.Chunks, c.kbName, time.Since(start).Round(time.Millisecond), idx.JobID)
	return nil
}

type evalClient struct {
	url, kbName, token string
}

func clientFlags(fs *flag.FlagSet) *evalClient {
	c := &evalClient{}
	fs.StringVar(&c.url, "url", "http://127.0.0.1:8000", "ragd's base URL")
	fs.StringVar(&c.kbName, "kb_name", "eval", "namespace holding the corpus")
	fs.StringVar(&c.token, "token", os.Getenv("RAGD_AUTH_API_KEY"), "bearer token (default $RAGD_AUTH_API_KEY)")
	return c
}

func (c *evalClient) searcher() *eval.HTTPSearcher {
	return &eval.HTTPSearcher{BaseURL: c.url, KBName: c.kbName, Token: c.token}
}

// parseFlags parses args and refuses positional arguments; -h gives
// flag.ErrHelp, which runEval turns into success.
func parseFlags(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("%s: unexpected argument %q", fs.Name(), fs.Arg(0))
	}
	return nil
}

func evalContext(timeout time.Duration) (context.Context, context.CancelFunc) {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	ctx, cancel := context.WithTimeout(ctx, timeout)
	return ctx, func() { cancel(); stop() }
}

// findGOROOT is $GOROOT, else what the go command reports, else the root
// this binary was built with.
func findGOROOT() (string, error) {
	if r := os.Getenv("GOROOT"); r != "" {
		return r, nil
	}
	if out, err := exec.Command("go", "env", "GOROOT").Output(); err == nil {
		if r := strings.TrimSpace(string(out)); r != "" {
			return r, nil
		}
	}
	if r := runtime.GOROOT(); r != "" {
		return r, nil
	}
	return "", errors.New("eval corpus: cannot find GOROOT: set $GOROOT or pass --goroot")
}
