package s3sync

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"path"

	"ragd"
	"ragd/internal/catalog/registry"
	"ragd/internal/jobs/sourcesync"
)

// Stage reads the object at key (counted in Reads), at most
// MaxObjectBytes of it within Timeout, and keeps its bytes where the
// pipeline reads uploads.
func (s *Syncer) Stage(ctx context.Context, p *sourcesync.Plan, key string) (sourcesync.File, error) {
	st := stateOf(p)
	f := sourcesync.File{Item: key, Filename: path.Base(key), Source: ragd.SourceItemURI(ragd.SourceS3, st.at.where(), key),
		WebURL: st.at.webURL(key)}
	if !st.read[key] {
		return f, fmt.Errorf("s3: %w", sourcesync.ErrNotPlanned(key))
	}
	rctx, cancel := context.WithTimeout(ctx, s.Timeout)
	defer cancel()
	body, err := st.lister.Read(rctx, key)
	if err != nil {
		return f, err
	}
	s.Reads.Add(1)
	f.Upload, err = sourcesync.Keep(s.UploadsDir, bytes.NewReader(body))
	return f, err
}

// Synced keeps the ETags of the objects the plan handed to the pipeline
// or left unchanged, for the next plan to compare with.
func (s *Syncer) Synced(ctx context.Context, p *sourcesync.Plan) error {
	raw, err := json.Marshal(stateOf(p).etags)
	if err != nil {
		return err
	}
	return s.KV.Set(ctx, s.Keys.SourceState(p.Src.ID), raw, 0)
}

// Forget drops the source's ETags.
func (s *Syncer) Forget(ctx context.Context, src ragd.Source) error {
	return s.KV.Delete(ctx, s.Keys.SourceState(src.ID))
}

// Documents is the source's documents that ctx's audience sees.
func (s *Syncer) Documents(ctx context.Context, src ragd.Source) ([]registry.SourceRef, error) {
	at, err := locate(src)
	if err != nil {
		return nil, err
	}
	return sourcesync.Documents(ctx, s.Registry, src, ragd.SourceItemPrefix(ragd.SourceS3, at.where()))
}

// LocalPath is "": an s3 source reads no local path.
func (s *Syncer) LocalPath(ragd.Source) string { return "" }
