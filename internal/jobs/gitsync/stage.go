package gitsync

import (
	"context"
	"fmt"
	"path"

	"ragd"
	"ragd/internal/jobs/sourcesync"
)

// Stage reads path's blob (counted in Reads) and keeps its bytes where
// the pipeline reads uploads; a blob past MaxFileBytes is refused.
func (s *Syncer) Stage(_ context.Context, p *sourcesync.Plan, name string) (sourcesync.File, error) {
	src, st := p.Src, stateOf(p)
	f := sourcesync.File{Item: name, Filename: path.Base(name), Source: ragd.GitURI(src.URL, src.Ref, name),
		WebURL: WebURL(s.WebURL, src.URL, p.Commit, name)}
	h, ok := st.blobs[name]
	if !ok {
		return f, fmt.Errorf("git: %w", sourcesync.ErrNotPlanned(name))
	}
	blob, err := st.repo.repo.BlobObject(h)
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
	f.Upload, err = sourcesync.Keep(s.UploadsDir, r)
	return f, err
}
