package ingest

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"time"

	"golang.org/x/sync/semaphore"

	"ragd"
	"ragd/internal/ingest/document"
	"ragd/internal/ingest/guard"
	"ragd/internal/ingest/sourcetype"
)

// Reader reads an ingest job's source — a file inside the roots, a URL,
// inline text or uploaded bytes — within the configured limits, and parses
// it with its pictures.
type Reader struct {
	Roots        *guard.Roots
	Fetcher      *guard.Fetcher
	MaxFileBytes int64
	Parser       Parser
	// UploadsDir holds uploaded bytes by their sha256 (<data.dir>/uploads).
	UploadsDir string
	// Parses, when set, bounds the sources read and parsed at once
	// (ingest.parse_concurrency): a job spends most of its time waiting on
	// the store and the registry, so a worker runs many, but a parse holds
	// a document's bytes and, for a PDF, a parser process of its own.
	Parses *semaphore.Weighted
}

// Source names what to read: exactly one of FilePath, URL, Upload and Text.
type Source struct {
	FilePath, URL, Text string
	// Upload is the sha256 of uploaded bytes kept in Reader.UploadsDir;
	// Filename, the name they were uploaded under, picks their parser.
	Upload, Filename string
	// Title names inline text in errors.
	Title string
	// Progress, when set, hears the OCR of scanned PDF pages: pages done
	// of total.
	Progress func(done, total int)
}

// Content is a source as read.
type Content struct {
	Raw []byte           // the bytes as loaded
	Doc *document.Loaded // the parsed document, pictures included
	// Size and ModTime are a file's as it was opened (zero otherwise).
	Size    int64
	ModTime time.Time
}

// Read reads and parses the source.
func (r *Reader) Read(ctx context.Context, src Source) (Content, error) {
	if r.Parses != nil {
		if err := r.Parses.Acquire(ctx, 1); err != nil {
			return Content{}, err
		}
		defer r.Parses.Release(1)
	}
	parser := r.Parser
	parser.Images, parser.Progress = true, src.Progress
	switch {
	case src.FilePath != "":
		return r.readFile(ctx, parser, src.FilePath)
	case src.Upload != "":
		return r.readUpload(ctx, parser, src.Upload, src.Filename)
	case src.URL != "":
		body, typ, final, err := r.Fetcher.Fetch(ctx, src.URL)
		if err != nil {
			return Content{}, err
		}
		loaded, err := parser.Parse(ctx, body, typ, final)
		return Content{Raw: body, Doc: loaded}, err
	default:
		loaded, err := parser.Parse(ctx, []byte(src.Text), ragd.SourceText, src.Title)
		return Content{Raw: []byte(src.Text), Doc: loaded}, err
	}
}

// readFile re-checks the path against the roots (a symlink may have changed
// since the API accepted it), opens it only if it is a regular file and
// reads at most MaxFileBytes.
func (r *Reader) readFile(ctx context.Context, parser Parser, path string) (Content, error) {
	resolved, err := r.Roots.Resolve(path)
	if err != nil {
		return Content{}, &document.ParseError{Source: path, Err: err}
	}
	typ, ok := sourcetype.ForName(resolved)
	if !ok {
		return Content{}, fmt.Errorf("%s: %w", path, sourcetype.ErrUnsupported)
	}
	f, fi, err := guard.OpenRegular(resolved)
	if err != nil {
		return Content{}, &document.ParseError{Source: path, Err: err}
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, r.MaxFileBytes+1))
	if err != nil {
		return Content{}, fmt.Errorf("read %s: %w", path, err)
	}
	if int64(len(data)) > r.MaxFileBytes {
		return Content{}, &document.ParseError{Source: path, Err: fmt.Errorf("file is larger than ingest.max_file_bytes (%d bytes)", r.MaxFileBytes)}
	}
	loaded, err := parser.Parse(ctx, data, typ, filepath.Base(resolved))
	// The stat of the descriptor read, taken before the read: a file
	// changed meanwhile shows a newer time at the next sync.
	return Content{Raw: data, Doc: loaded, Size: fi.Size(), ModTime: fi.ModTime()}, err
}
