package gitsync

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path"

	"ragd"
	"ragd/internal/ingest"
)

// File is a path of a plan staged for the document pipeline: its blob's
// bytes kept under the uploads directory by their sha256.
type File struct {
	Path     string
	Upload   string // sha256 of the bytes, their name under UploadsDir
	Filename string // the path's base name: the loader follows its extension
	Source   string // ragd.GitURI
	WebURL   string // the citation, "" when none can be derived
}

// Stage reads path's blob (counted in Reads) and keeps its bytes where
// the pipeline reads uploads; a blob past MaxFileBytes is refused.
func (s *Syncer) Stage(p *Plan, name string) (File, error) {
	src := p.src
	f := File{Path: name, Filename: path.Base(name), Source: ragd.GitURI(src.URL, src.Ref, name),
		WebURL: WebURL(s.WebURL, src.URL, p.Commit, name)}
	h, ok := p.blobs[name]
	if !ok {
		return f, fmt.Errorf("git: %s is not in the plan", name)
	}
	blob, err := p.repo.repo.BlobObject(h)
	if err != nil {
		return f, fmt.Errorf("git: blob of %s: %w", name, err)
	}
	if s.MaxFileBytes > 0 && blob.Size > s.MaxFileBytes {
		return f, &ragd.Error{Kind: ragd.KindTooLarge, Message: fmt.Sprintf("%s has %d bytes, more than ingest.max_file_bytes (%d)", name, blob.Size, s.MaxFileBytes)}
	}
	r, err := blob.Reader()
	if err != nil {
		return f, fmt.Errorf("git: blob of %s: %w", name, err)
	}
	defer r.Close()
	s.Reads.Add(1)
	f.Upload, err = s.keep(r)
	return f, err
}

// keep writes r to the uploads directory under the sha256 of its bytes
// (a temporary file renamed into place, so a reader never sees a part).
func (s *Syncer) keep(r io.Reader) (string, error) {
	if err := os.MkdirAll(s.UploadsDir, 0o750); err != nil {
		return "", ragd.Unavailable("uploads directory", err)
	}
	tmp, err := os.CreateTemp(s.UploadsDir, ".git-*")
	if err != nil {
		return "", ragd.Unavailable("uploads directory", err)
	}
	defer os.Remove(tmp.Name())
	sum := sha256.New()
	_, err = io.Copy(io.MultiWriter(tmp, sum), r)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return "", ragd.Unavailable("uploads directory", err)
	}
	hash := hex.EncodeToString(sum.Sum(nil))
	dst, err := ingest.UploadPath(s.UploadsDir, hash)
	if err != nil {
		return "", err
	}
	if err := os.Rename(tmp.Name(), dst); err != nil {
		return "", ragd.Unavailable("uploads directory", err)
	}
	return hash, nil
}
