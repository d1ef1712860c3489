package library

import (
	"context"
	"encoding/json"
	"time"

	"ragd/wire"

	"ragd"
	"ragd/internal/authn"
	"ragd/internal/jobs"
)

// UploadRequest is POST /documents (and core_ingest with content_base64):
// files read into a spool, and where and how to index them.
type UploadRequest struct {
	KBName string
	Tags   []string
	// Access, when set, is every file's (see IndexRequest.Access).
	Access []string
	Force  bool
	Files  *Spool
}

// Uploaded is wire.Uploaded, the contract REST, MCP and the client share.
type Uploaded = wire.Uploaded

// UploadJob is wire.UploadJob, the contract REST, MCP and the client share.
type UploadJob = wire.UploadJob

// Upload accepts a spool's files into a namespace: it checks the caller's
// rights, keeps the bytes under their hash and enqueues one document job
// per file whose bytes the namespace does not already hold (unless Force).
// The document of a file is upload://<kb_name>/<filename>, so uploading a
// name again replaces that document's version.
func (s *Service) Upload(ctx context.Context, req UploadRequest) (Uploaded, error) {
	ns, err := authn.Namespace(ctx, req.KBName)
	if err != nil {
		return Uploaded{}, err
	}
	if err := ragd.ValidTags(req.Tags); err != nil {
		return Uploaded{}, err
	}
	if req.Files == nil || len(req.Files.Files()) == 0 {
		return Uploaded{}, ragd.Invalid("file", "missing", "at least one file part (named file, with a filename) is required")
	}
	if err := req.Files.commit(); err != nil {
		return Uploaded{}, err
	}
	out := Uploaded{KBName: ns, Jobs: make([]UploadJob, 0, len(req.Files.Files()))}
	for _, f := range req.Files.Files() {
		job, err := s.enqueueUpload(ctx, ns, req, f)
		if err != nil {
			return Uploaded{}, err
		}
		out.Jobs = append(out.Jobs, job)
	}
	return out, nil
}

func (s *Service) enqueueUpload(ctx context.Context, ns string, req UploadRequest, f SpooledFile) (UploadJob, error) {
	access, err := AccessParam(req.Access)
	if err != nil {
		return UploadJob{}, err
	}
	pl := jobs.DocumentPayload{Namespace: ns, Source: ragd.UploadURI(ns, askerScope(ctx), f.Filename), Tags: req.Tags, Access: access, Viewer: ViewerOf(ctx),
		Force: req.Force, CreatedAt: time.Now().UTC(), Upload: f.Hash, Filename: f.Filename}
	pl.DocumentID = ragd.DocumentID(ns, pl.Source)
	if err := s.mayReplace(ctx, pl); err != nil {
		return UploadJob{}, err
	}
	job := UploadJob{Status: ragd.JobQueued, DocumentID: pl.DocumentID, Filename: f.Filename, Source: pl.Source, Bytes: f.Size}
	if !req.Force {
		hit, err := s.dedup(ctx, ns, pl, f.Hash)
		if err != nil {
			return UploadJob{}, err
		}
		if hit != nil {
			job.Status, job.DocumentID, job.DedupHit = hit.Status, hit.DocumentID, true
			job.ChunksIndexed = &hit.Existing.Chunks
			return job, nil
		}
	}
	id := jobs.NewJobID()
	if err := s.Queue.EnqueueDocument(ctx, id, pl); err != nil {
		return UploadJob{}, EnqueueFailed(err)
	}
	s.Log.InfoContext(ctx, "upload job enqueued", "job_id", id, "kb_name", ns, "source", pl.Source, "bytes", f.Size)
	job.JobID = &id
	return job, nil
}

// WaitUploads waits for an upload's jobs, all within one WaitTimeout, and
// fills in each job's last state. It reports whether every job ended.
func (s *Service) WaitUploads(ctx context.Context, up *Uploaded) (bool, error) {
	deadline := time.Now().Add(s.WaitTimeout)
	done := true
	for i := range up.Jobs {
		j := &up.Jobs[i]
		if j.JobID == nil {
			continue
		}
		job, err := s.WaitJob(ctx, *j.JobID, max(time.Until(deadline), time.Millisecond), nil)
		if err != nil {
			return false, err
		}
		j.Status, j.Error = job.Status, job.Error
		if !job.Status.Terminal() {
			done = false
			continue
		}
		var res ragd.DocumentResult
		if job.Status == ragd.JobCompleted && json.Unmarshal(job.Result, &res) == nil {
			j.ChunksIndexed, j.DedupHit = &res.ChunksIndexed, res.DedupHit
			if res.DocumentID != "" {
				j.DocumentID = res.DocumentID
			}
		}
	}
	return done, nil
}

// askerScope is the scope segment (ragd.URIScope) of ctx's principal.
func askerScope(ctx context.Context) string { return ragd.URIScope(ragd.AudienceIn(ctx)) }
