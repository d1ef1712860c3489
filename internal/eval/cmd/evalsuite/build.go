package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"ragd/internal/eval"
)

func goEnv(name string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	out, err := exec.Command("go", "env", name).Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

// cmdBuild writes each corpus into its own directory; a corpus whose
// source is missing is reported and skipped, not fatal, so the others
// still run (the run step then says which corpora it scored).
func cmdBuild(args []string) error {
	fs := flag.NewFlagSet("build", flag.ContinueOnError)
	out := fs.String("out", "", "directory to write DIR/<corpus> into")
	only := fs.String("only", "", "comma-separated corpora (default all)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *out == "" {
		return fmt.Errorf("build: --out is required")
	}
	src := eval.Sources{GOROOT: goEnv("GOROOT"), GOMODCACHE: goEnv("GOMODCACHE"), NpmDirs: eval.DefaultNpmDirs}
	built := 0
	for _, c := range eval.Corpora {
		if *only != "" && !strings.Contains(","+*only+",", ","+c.Name+",") {
			continue
		}
		dir := filepath.Join(*out, c.Name)
		if err := c.Build(src, dir); err != nil {
			fmt.Fprintf(os.Stderr, "evalsuite build: corpus %s skipped: %v\n", c.Name, err)
			_ = os.RemoveAll(dir)
			continue
		}
		n, _ := filepath.Glob(filepath.Join(dir, "*"))
		fmt.Fprintf(os.Stderr, "evalsuite build: %s: %d files (%s)\n", c.Name, len(n), c.From)
		built++
	}
	if built == 0 {
		return fmt.Errorf("build: no corpus could be built")
	}
	return nil
}

// cmdSample prints the passages the questions of a corpus were written
// from: the sample is part of the method, so it is reproducible.
func cmdSample(args []string) error {
	fs := flag.NewFlagSet("sample", flag.ContinueOnError)
	dir := fs.String("dir", "", "a corpus directory written by build")
	n := fs.Int("n", 60, "passages to draw")
	seed := fs.Uint64("seed", 17, "random seed")
	if err := fs.Parse(args); err != nil {
		return err
	}
	ps, err := eval.Passages(*dir)
	if err != nil {
		return err
	}
	for i, p := range eval.Sample(ps, *n, *seed) {
		fmt.Printf("=== %d %s #%d\n%s\n\n", i+1, p.Doc, p.N, p.Text)
	}
	return nil
}
