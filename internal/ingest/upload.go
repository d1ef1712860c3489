package ingest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"ragd"
	"ragd/internal/ingest/document"
	"ragd/internal/ingest/guard"
	"ragd/internal/ingest/sourcetype"
)

// UploadPath is where uploaded bytes with the given sha256 (lowercase hex)
// are kept under dir. Only a well-formed hash names a file, so no value
// can lead out of dir.
func UploadPath(dir, hash string) (string, error) {
	if !isSHA256Hex(hash) {
		return "", fmt.Errorf("%q is not a sha256 in lowercase hex", hash)
	}
	return filepath.Join(dir, hash), nil
}

func isSHA256Hex(s string) bool {
	if len(s) != 64 {
		return false
	}
	for _, c := range s {
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// readUpload reads stored upload bytes and parses them by the uploaded
// file's name. The file must still be a regular file directly in the
// uploads directory (not a symlink out of it), within MaxFileBytes, and
// hash to its name, so a swapped or damaged file fails the job instead of
// indexing other bytes.
func (r *Reader) readUpload(ctx context.Context, parser Parser, hash, filename string) (Content, error) {
	name := "upload " + filename
	if r.UploadsDir == "" {
		return Content{}, &document.ParseError{Source: name, Err: errors.New("this worker has no uploads directory (data.dir)")}
	}
	typ, ok := sourcetype.ForName(filename)
	if !ok {
		return Content{}, fmt.Errorf("%s: %w", filename, sourcetype.ErrUnsupported)
	}
	path, err := UploadPath(r.UploadsDir, hash)
	if err != nil {
		return Content{}, &document.ParseError{Source: name, Err: err}
	}
	if fi, err := os.Lstat(path); err != nil {
		return Content{}, &document.ParseError{Source: name, Err: fmt.Errorf("stored bytes %s are gone: %w", hash, guard.UnwrapPathErr(err))}
	} else if !fi.Mode().IsRegular() {
		return Content{}, &document.ParseError{Source: name, Err: fmt.Errorf("stored bytes %s are %s, not a regular file", hash, guard.FileTypeName(fi.Mode()))}
	}
	f, _, err := guard.OpenRegular(path)
	if err != nil {
		return Content{}, &document.ParseError{Source: name, Err: err}
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, r.MaxFileBytes+1))
	if err != nil {
		return Content{}, fmt.Errorf("read %s: %w", name, err)
	}
	if int64(len(data)) > r.MaxFileBytes {
		return Content{}, &document.ParseError{Source: name, Err: fmt.Errorf("file is larger than ingest.max_file_bytes (%d bytes)", r.MaxFileBytes)}
	}
	if ragd.ContentHash(data) != hash {
		return Content{}, &document.ParseError{Source: name, Err: fmt.Errorf("stored bytes %s do not match their hash", hash)}
	}
	loaded, err := parser.Parse(ctx, data, typ, filename)
	return Content{Raw: data, Doc: loaded}, err
}
