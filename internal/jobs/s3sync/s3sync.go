// Package s3sync is the s3 sourcesync.Kind: a bucket and key prefix on
// any S3-compatible endpoint, listed by package s3list, kept in sync by
// ETag. A source reads s3://<bucket>/<prefix> at its endpoint with the
// key pair its access_key and secret_key name as env:VAR (check.go). A
// plan lists every object under the prefix and compares each ETag with
// those of the last sync, kept in Redis under the source's state key
// (one JSON object, key → ETag, written when a sync's items were handed
// to the pipeline and forgotten with the source) and trusted only for
// keys that still have a document: only added and changed objects of a
// type ragd reads, inside the source's include and exclude globs, are
// read (Stage, counted in Reads); the documents of keys no longer listed
// or no longer in scope are deleted. An object larger than
// ingest.max_file_bytes is not read and its document is kept (the plan's
// Failed). A listing that fails — the endpoint down or refused by the
// address guard, the credentials refused, the bucket missing, more
// objects than sources.s3_max_objects, sources.s3_timeout passed — fails
// the plan before anything is deleted, and so does, without force, a
// plan that would delete more than half of the source's documents.
package s3sync

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"path"
	"slices"
	"sync/atomic"
	"time"

	"ragd"
	"ragd/internal/catalog/registry"
	"ragd/internal/ingest/guard"
	"ragd/internal/ingest/s3list"
	"ragd/internal/ingest/sourcetype"
	"ragd/internal/jobs/sourcesync"
	"ragd/internal/platform/keyspace"
	"ragd/internal/platform/kv"
)

var _ sourcesync.Kind = (*Syncer)(nil)

// Syncer plans and stages s3 sources' syncs.
type Syncer struct {
	UploadsDir string         // <data.dir>/uploads: staged objects
	Fetcher    *guard.Fetcher // the address check of every connection (ingest.allow_private_urls)
	Registry   *registry.Registry
	// KV and Keys hold each source's ETags (Keys.SourceState).
	KV   *kv.Store
	Keys keyspace.Keys
	// MaxObjects bounds the objects under a prefix (sources.s3_max_objects),
	// MaxObjectBytes an object read (ingest.max_file_bytes), Timeout a
	// listing and each object read (sources.s3_timeout).
	MaxObjects     int
	MaxObjectBytes int64
	Timeout        time.Duration

	// Reads counts the objects read: a sync reads only what changed.
	Reads atomic.Int64
}

// planState is an s3 plan's own: the bucket, its lister, the keys to
// read and the ETags the next sync compares with.
type planState struct {
	at     bucketAt
	lister *s3list.Lister
	read   map[string]bool
	etags  map[string]string
}

func stateOf(p *sourcesync.Plan) planState { st, _ := p.State.(planState); return st }

// Plan lists the source's bucket and plans its sync; force reads every
// object in scope again (the pipeline does not embed an unchanged content
// again) and deletes more than half of the documents if it must.
func (s *Syncer) Plan(ctx context.Context, src ragd.Source, force bool) (*sourcesync.Plan, error) {
	at, err := locate(src)
	if err != nil {
		return nil, err
	}
	l, err := s3list.New(s3list.Config{Endpoint: at.endpoint, Bucket: at.bucket, Prefix: at.prefix, Region: src.Region,
		AccessKey: src.AccessKey, SecretKey: src.SecretKey, MaxObjects: s.MaxObjects, MaxObjectBytes: s.MaxObjectBytes}, s.Fetcher)
	if err != nil {
		return nil, err
	}
	docs, err := s.documents(ctx, src)
	if err != nil {
		return nil, err
	}
	prev, err := s.previous(ctx, src.ID, docs)
	if err != nil {
		return nil, err
	}
	if force {
		prev = map[string]string{}
	}
	listing, err := s.list(ctx, l, prev)
	if err != nil {
		return nil, err
	}
	p := sourcesync.NewPlan(src, planState{at: at, lister: l, read: map[string]bool{}, etags: map[string]string{}})
	p.Full = len(prev) == 0
	s.compare(p, listing, prev, docs)
	return p, sourcesync.GuardDeletes(p, len(docs), force)
}

// list lists the bucket within Timeout.
func (s *Syncer) list(ctx context.Context, l *s3list.Lister, prev map[string]string) (s3list.Listing, error) {
	lctx, cancel := context.WithTimeout(ctx, s.Timeout)
	defer cancel()
	listing, err := l.List(lctx, prev)
	switch {
	case err != nil && lctx.Err() != nil && ctx.Err() == nil:
		return listing, &ragd.Error{Kind: ragd.KindUnavailable, Message: fmt.Sprintf(
			"the bucket's listing took longer than sources.s3_timeout (%s): nothing was deleted", s.Timeout), Err: err}
	case ragd.KindOf(err) == ragd.KindTooLarge:
		return listing, &ragd.Error{Kind: ragd.KindTooLarge, Message: fmt.Sprintf(
			"the bucket has more than sources.s3_max_objects (%d) objects under the source's prefix: nothing was deleted; narrow the prefix or raise the setting",
			s.MaxObjects)}
	}
	return listing, err
}

// compare sorts the listed objects in scope — a type ragd reads, taken
// by the globs — into the plan: added (no document), changed (an ETag
// other than the last sync's, or none kept), unchanged, failed (too
// large: not read, its document kept); the documents of keys not in
// scope any more are deleted.
func (s *Syncer) compare(p *sourcesync.Plan, listing s3list.Listing, prev map[string]string, docs map[string]registry.SourceRef) {
	st := stateOf(p)
	globs := sourcesync.NewGlobs(p.Src.Include, p.Src.Exclude)
	inScope, tooLarge := map[string]bool{}, map[string]bool{}
	for _, key := range listing.TooLarge {
		tooLarge[key] = true
	}
	for _, key := range slices.Sorted(maps.Keys(listing.Objects)) {
		o := listing.Objects[key]
		if _, ok := sourcetype.ForName(path.Base(key)); !ok || !globs.Take(st.at.rel(key)) {
			continue
		}
		inScope[key] = true
		_, hasDoc := docs[key]
		switch last, seen := prev[key]; {
		case tooLarge[key]:
			if p.Failed == nil {
				p.Failed = map[string]string{}
			}
			p.Failed[key] = fmt.Sprintf("%d bytes, more than ingest.max_file_bytes: not read, its document kept", o.Size)
			continue
		case seen && last == o.ETag:
			p.Unchanged++
		case seen || hasDoc:
			p.Changed = append(p.Changed, key)
			st.read[key] = true
		default:
			p.Added = append(p.Added, key)
			st.read[key] = true
		}
		st.etags[key] = o.ETag
	}
	for _, key := range slices.Sorted(maps.Keys(docs)) {
		if !inScope[key] {
			p.Deleted = append(p.Deleted, docs[key])
		}
	}
}

// documents is the source's documents that ctx's audience sees, by key.
func (s *Syncer) documents(ctx context.Context, src ragd.Source) (map[string]registry.SourceRef, error) {
	refs, err := s.Documents(ctx, src)
	if err != nil {
		return nil, err
	}
	out := make(map[string]registry.SourceRef, len(refs))
	for _, r := range refs {
		if key, ok := ragd.SourceItem(ragd.SourceS3, r.Source); ok {
			out[key] = r
		}
	}
	return out, nil
}

// previous is the ETags the last sync kept, of the keys that have a
// document: a key whose document job failed (or was never run) is read
// again.
func (s *Syncer) previous(ctx context.Context, id string, docs map[string]registry.SourceRef) (map[string]string, error) {
	raw, found, err := s.KV.Get(ctx, s.Keys.SourceState(id))
	if err != nil || !found {
		return map[string]string{}, err
	}
	var etags map[string]string
	if err := json.Unmarshal(raw, &etags); err != nil {
		return map[string]string{}, nil // unreadable: every object is read again
	}
	for k := range etags {
		if _, ok := docs[k]; !ok {
			delete(etags, k)
		}
	}
	return etags, nil
}
