package ingest

import (
	"context"
	"fmt"
	"io"
	"path/filepath"

	"ragd"
)

// Reader reads an ingest job's source — a file inside the roots, a URL or
// inline text — within the configured limits, and parses it with its
// pictures.
type Reader struct {
	Roots        *Roots
	Fetcher      *Fetcher
	MaxFileBytes int64
	Parser       Parser
}

// Source names what to read: exactly one of FilePath, URL and Text.
type Source struct {
	FilePath, URL, Text string
	// Title names inline text in errors.
	Title string
	// Progress, when set, hears the OCR of scanned PDF pages: pages done
	// of total.
	Progress func(done, total int)
}

// Read returns the source's bytes and the parsed document.
func (r *Reader) Read(ctx context.Context, src Source) ([]byte, *Loaded, error) {
	parser := r.Parser
	parser.Images, parser.Progress = true, src.Progress
	switch {
	case src.FilePath != "":
		return r.readFile(ctx, parser, src.FilePath)
	case src.URL != "":
		body, typ, final, err := r.Fetcher.Fetch(ctx, src.URL)
		if err != nil {
			return nil, nil, err
		}
		loaded, err := parser.Parse(ctx, body, typ, final)
		return body, loaded, err
	default:
		loaded, err := parser.Parse(ctx, []byte(src.Text), ragd.SourceText, src.Title)
		return []byte(src.Text), loaded, err
	}
}

// readFile re-checks the path against the roots (a symlink may have changed
// since the API accepted it), opens it only if it is a regular file and
// reads at most MaxFileBytes.
func (r *Reader) readFile(ctx context.Context, parser Parser, path string) ([]byte, *Loaded, error) {
	resolved, err := r.Roots.Resolve(path)
	if err != nil {
		return nil, nil, &ParseError{Source: path, Err: err}
	}
	typ, ok := TypeForExtension(filepath.Ext(resolved))
	if !ok {
		return nil, nil, fmt.Errorf("%s: %w", path, ErrUnsupported)
	}
	f, _, err := OpenRegular(resolved)
	if err != nil {
		return nil, nil, &ParseError{Source: path, Err: err}
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, r.MaxFileBytes+1))
	if err != nil {
		return nil, nil, fmt.Errorf("read %s: %w", path, err)
	}
	if int64(len(data)) > r.MaxFileBytes {
		return nil, nil, &ParseError{Source: path, Err: fmt.Errorf("file is larger than ingest.max_file_bytes (%d bytes)", r.MaxFileBytes)}
	}
	loaded, err := parser.Parse(ctx, data, typ, filepath.Base(resolved))
	return data, loaded, err
}
