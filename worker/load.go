package worker

import (
	"context"
	"fmt"
	"io"
	"path/filepath"

	"ragd"
	"ragd/ingest"
	"ragd/jobs"
)

// load fetches the payload's bytes and parses them, pictures included.
func (p *Pipeline) load(ctx context.Context, pl jobs.DocumentPayload) ([]byte, *ingest.Loaded, error) {
	parser := p.Parser
	parser.Images = true
	switch {
	case pl.FilePath != "":
		return p.loadFile(ctx, parser, pl.FilePath)
	case pl.URL != "":
		body, typ, final, err := p.Fetcher.Fetch(ctx, pl.URL)
		if err != nil {
			return nil, nil, err
		}
		loaded, err := parser.Parse(ctx, body, typ, final)
		return body, loaded, err
	default:
		loaded, err := parser.Parse(ctx, []byte(pl.Text), ragd.SourceText, pl.Title)
		return []byte(pl.Text), loaded, err
	}
}

// loadFile re-checks the path against the ingest roots (a symlink may have
// changed since the API accepted it), opens it only if it is a regular file
// and reads at most MaxFileBytes.
func (p *Pipeline) loadFile(ctx context.Context, parser ingest.Parser, path string) ([]byte, *ingest.Loaded, error) {
	resolved, err := p.Roots.Resolve(path)
	if err != nil {
		return nil, nil, &ingest.ParseError{Source: path, Err: err}
	}
	typ, ok := ingest.TypeForExtension(filepath.Ext(resolved))
	if !ok {
		return nil, nil, fmt.Errorf("%s: %w", path, ingest.ErrUnsupported)
	}
	f, _, err := ingest.OpenRegular(resolved)
	if err != nil {
		return nil, nil, &ingest.ParseError{Source: path, Err: err}
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, p.MaxFileBytes+1))
	if err != nil {
		return nil, nil, fmt.Errorf("read %s: %w", path, err)
	}
	if int64(len(data)) > p.MaxFileBytes {
		return nil, nil, &ingest.ParseError{Source: path, Err: fmt.Errorf("file is larger than ingest.max_file_bytes (%d bytes)", p.MaxFileBytes)}
	}
	loaded, err := parser.Parse(ctx, data, typ, filepath.Base(resolved))
	return data, loaded, err
}
