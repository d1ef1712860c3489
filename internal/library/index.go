package library

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"ragd/wire"

	"ragd"
	"ragd/internal/authn"
	"ragd/internal/ingest"
	"ragd/internal/ingest/guard"
	"ragd/internal/ingest/sourcetype"
	"ragd/internal/jobs"
	"ragd/internal/jobs/syncplan"
)

// IndexRequest is wire.IndexRequest, the contract REST, MCP and the client share.
type IndexRequest = wire.IndexRequest

// DirectoryRequest is wire.DirectoryRequest, the contract REST, MCP and the client share.
type DirectoryRequest = wire.DirectoryRequest

// Enqueued is wire.Enqueued, the contract REST, MCP and the client share.
type Enqueued = wire.Enqueued

// Index validates the request, checks for duplicates and enqueues a document
// job. An unchanged source already indexed in the namespace is a dedup hit:
// no job is created unless Force is set.
func (s *Service) Index(ctx context.Context, req IndexRequest) (Enqueued, error) {
	ns, err := authn.Namespace(ctx, req.KBName)
	if err != nil {
		return Enqueued{}, err
	}
	if err := ragd.ValidTags(req.Tags); err != nil {
		return Enqueued{}, err
	}
	if err := ragd.ValidTitle(req.Title); err != nil {
		return Enqueued{}, err
	}
	access, err := AccessParam(req.Access)
	if err != nil {
		return Enqueued{}, err
	}
	pl := jobs.DocumentPayload{Namespace: ns, Title: req.Title, Tags: req.Tags, Access: access, Viewer: ViewerOf(ctx), Force: req.Force,
		CreatedAt: time.Now().UTC()}
	var rawHash string
	switch n := countSet(req.FilePath, req.URL, req.Text); {
	case n == 0:
		return Enqueued{}, ragd.Invalid("file_path", "missing", "one of file_path, url or text is required")
	case n > 1:
		return Enqueued{}, ragd.Invalid("file_path", "value_error", "give only one of file_path, url or text")
	case req.FilePath != "":
		path, err := s.resolve(ctx, req.FilePath)
		if err != nil {
			return Enqueued{}, err
		}
		if _, ok := sourcetype.ForName(path); !ok {
			return Enqueued{}, ragd.Invalid("file_path", "value_error", "unsupported file type %q: supported are %s",
				filepath.Ext(path), strings.Join(sourcetype.Extensions(), ", "))
		}
		if rawHash, err = hashFile(path); err != nil {
			return Enqueued{}, err
		}
		pl.FilePath, pl.Source = path, ragd.FileURI(path)
	case req.URL != "":
		// Last of the checks: it resolves the host, which a refused
		// request must not make ragd do.
		u, err := s.Fetcher.CheckURL(ctx, req.URL)
		if err != nil {
			return Enqueued{}, err
		}
		pl.URL, pl.Source, pl.SourceType = u.String(), ingest.CanonicalURL(u), ragd.SourceURL
	default:
		if strings.TrimSpace(req.Text) == "" {
			return Enqueued{}, ragd.Invalid("text", "value_error", "text is empty")
		}
		if n := int64(len(req.Text)); s.MaxTextBytes > 0 && n > s.MaxTextBytes {
			return Enqueued{}, &ragd.Error{Kind: ragd.KindTooLarge, Message: "text", Err: ingest.TextTooLarge(n, s.MaxTextBytes)}
		}
		pl.Text, pl.SourceType = req.Text, ragd.SourceText
		pl.Source = ragd.TextURI(askerScope(ctx), req.Text)
	}
	pl.DocumentID = ragd.DocumentID(ns, pl.Source)
	if err := s.mayReplace(ctx, pl); err != nil {
		return Enqueued{}, err
	}

	if !req.Force {
		hit, err := s.dedup(ctx, ns, pl, rawHash)
		if err != nil {
			return Enqueued{}, err
		}
		if hit != nil {
			hit.Source = pl.Source
			return *hit, nil
		}
	}
	id := jobs.NewJobID()
	if err := s.Queue.EnqueueDocument(ctx, id, pl); err != nil {
		return Enqueued{}, EnqueueFailed(err)
	}
	s.Log.InfoContext(ctx, "document job enqueued", "job_id", id, "kb_name", ns, "source", pl.Source)
	return Enqueued{JobID: &id, Status: ragd.JobQueued, DocumentID: pl.DocumentID, Source: pl.Source}, nil
}

// EnqueueFailed is the error a failed enqueue answers: the queue's own
// when it says why (a job no Redis replica confirmed in time: 503, retry
// safe), else Redis unavailable.
func EnqueueFailed(err error) error {
	var re *ragd.Error
	if errors.As(err, &re) && re.Kind == ragd.KindUnavailable {
		return err
	}
	return ragd.Unavailable("redis", err)
}

// dedup finds an indexed document with the same bytes (files) or the same
// normalized text (inline text). URLs are checked by the worker once fetched.
func (s *Service) dedup(ctx context.Context, ns string, pl jobs.DocumentPayload, rawHash string) (*Enqueued, error) {
	var owner string
	var err error
	switch {
	case rawHash != "":
		owner, err = s.Registry.ByRawHash(ctx, ns, rawHash)
	case pl.Text != "":
		loaded, perr := ingest.Parse([]byte(pl.Text), ragd.SourceText, "text")
		if perr != nil {
			return nil, ragd.Invalid("text", "value_error", "%v", perr)
		}
		owner, err = s.Registry.ByContentHash(ctx, ns, ragd.ContentHash([]byte(loaded.NormalizedText())))
	}
	if err != nil {
		return nil, ragd.Unavailable("redis", err)
	}
	if owner == "" {
		return nil, nil
	}
	doc, err := s.Registry.Get(ctx, ns, owner)
	if err != nil {
		// A recorded hash without a document, or another's to see: this
		// one is indexed afresh, as a document of its own.
		return nil, nil
	}
	// A dedup hit must already have the access pl's job would leave;
	// another document's own access is not pl's document's.
	prev := doc
	if owner != pl.DocumentID {
		prev = nil
	}
	if !slices.Equal(doc.Access, pl.AccessFor(prev)) {
		// To be shared otherwise: this one is indexed as a document of its
		// own (or, the same one, re-shared).
		return nil, nil
	}
	// Acknowledged only once a replica holds the document (it may be a
	// refused request's job's, on the primary alone).
	if err := s.Queue.Confirm(ctx); err != nil {
		return nil, err
	}
	return &Enqueued{Status: ragd.JobCompleted, DocumentID: owner, DedupHit: true, Existing: doc}, nil
}

// IndexDirectory validates the request and enqueues a directory job (a
// sync job with Sync).
func (s *Service) IndexDirectory(ctx context.Context, req DirectoryRequest) (Enqueued, error) {
	sc, err := s.directoryScope(ctx, req)
	if err != nil {
		return Enqueued{}, err
	}
	id := jobs.NewJobID()
	err = s.Queue.EnqueueDirectory(ctx, id, jobs.DirectoryPayload{Namespace: sc.Namespace, DirectoryPath: sc.Dir,
		Recursive: sc.Recursive, Tags: req.Tags, Access: sc.Access, Viewer: ViewerOf(ctx), Force: req.Force, Sync: req.Sync, Prune: sc.Prune,
		IncludeIgnored: sc.IncludeIgnored, CreatedAt: time.Now().UTC()})
	if err != nil {
		return Enqueued{}, EnqueueFailed(err)
	}
	s.Log.InfoContext(ctx, "directory job enqueued", "job_id", id, "kb_name", sc.Namespace, "directory", sc.Dir, "sync", req.Sync)
	return Enqueued{JobID: &id, Status: ragd.JobQueued, Source: sc.Dir}, nil
}

// PlanDirectory answers a dry run: what a sync of the directory would do
// now. The sync job computes its plan the same way when it runs.
func (s *Service) PlanDirectory(ctx context.Context, req DirectoryRequest) (SyncPlan, error) {
	if !req.Sync {
		return SyncPlan{}, ragd.Invalid("dry_run", "value_error", "dry_run plans a sync: set sync to true")
	}
	sc, err := s.directoryScope(ctx, req)
	if err != nil {
		return SyncPlan{}, err
	}
	plan, err := syncplan.Make(ctx, s.Registry, s.Roots, sc)
	if err != nil && ragd.KindOf(err) == ragd.KindInternal {
		return plan, ragd.Invalid("directory_path", "value_error", "%v", err)
	}
	return plan, err
}

// directoryScope validates a directory request into the scope it covers.
func (s *Service) directoryScope(ctx context.Context, req DirectoryRequest) (syncplan.Scope, error) {
	ns, err := authn.Namespace(ctx, req.KBName)
	if err != nil {
		return syncplan.Scope{}, err
	}
	if err := ragd.ValidTags(req.Tags); err != nil {
		return syncplan.Scope{}, err
	}
	access, err := AccessParam(req.Access)
	if err != nil {
		return syncplan.Scope{}, err
	}
	if req.DirectoryPath == "" {
		return syncplan.Scope{}, ragd.Invalid("directory_path", "missing", "directory_path is required")
	}
	if !req.Sync && req.Prune != nil {
		return syncplan.Scope{}, ragd.Invalid("prune", "value_error", "prune applies to a sync: set sync to true")
	}
	dir, err := s.resolve(ctx, req.DirectoryPath)
	if err != nil {
		return syncplan.Scope{}, Relabel(err, "file_path", "directory_path")
	}
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return syncplan.Scope{}, ragd.Invalid("directory_path", "value_error", "%s is not a directory", req.DirectoryPath)
	}
	return syncplan.Scope{Namespace: ns, Dir: dir, Recursive: req.Recursive == nil || *req.Recursive,
		Prune: req.Sync && (req.Prune == nil || *req.Prune), MaxFiles: s.MaxDirectoryFiles, IncludeIgnored: req.IncludeIgnored,
		Access: access}, nil
}

func countSet(values ...string) int {
	n := 0
	for _, v := range values {
		if v != "" {
			n++
		}
	}
	return n
}

// hashFile hashes a regular file's bytes; anything else (a FIFO would
// block the request for ever) is refused by type.
func hashFile(path string) (string, error) {
	f, _, err := guard.OpenRegular(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := newHasher()
	if _, err := io.Copy(h, f); err != nil {
		return "", ragd.Invalid("file_path", "value_error", "cannot read %s: %v", path, err)
	}
	return h.sum(), nil
}

// Relabel points a path error at the request field that carried the path.
func Relabel(err error, from, to string) error {
	if e, ok := err.(*ragd.Error); ok {
		for i := range e.Fields {
			for j, l := range e.Fields[i].Loc {
				if l == from {
					e.Fields[i].Loc[j] = to
				}
			}
		}
	}
	return err
}

// SyncPlan is syncplan.Plan, what a dry run of a directory sync answers.
type SyncPlan = syncplan.Plan
