package worker

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"

	"ragd"
	"ragd/internal/ingest"
	"ragd/internal/ingest/document"
	"ragd/internal/jobs"
	"ragd/internal/jobs/syncplan"
	"ragd/internal/platform/telemetry"
)

// IndexDirectory lists the directory's supported files and enqueues one
// document job per file — with Sync, per new or changed file, after
// deleting the documents whose file is gone (Prune). Child ids derive from
// the parent's, so a retried parent lists the same children: it skips those
// with an outcome (completed; their tasks are not kept) and Asynq drops the
// repeats of those still queued or running.
func (p *Pipeline) IndexDirectory(ctx context.Context, parentID string, pl jobs.DirectoryPayload, rep *jobs.Reporter) (ragd.DirectoryResult, error) {
	if pl.SourceID != "" {
		return p.SyncSource(ctx, parentID, pl, rep)
	}
	res := ragd.DirectoryResult{DirectoryPath: pl.DirectoryPath}
	dir, err := p.Reader.Roots.Resolve(pl.DirectoryPath)
	if err != nil {
		return res, &document.ParseError{Source: pl.DirectoryPath, Err: err}
	}
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return res, &document.ParseError{Source: pl.DirectoryPath, Err: fmt.Errorf("not a directory")}
	}
	var files []string
	walkCtx, span := telemetry.Start(ctx, "ingest.walk")
	if pl.Sync {
		files, err = p.syncPlan(walkCtx, pl, dir, &res)
	} else {
		files, err = ingest.WalkFilesWith(dir, p.Reader.Roots, ingest.WalkOptions{Recursive: pl.Recursive,
			IncludeIgnored: pl.IncludeIgnored, MaxFiles: p.MaxDirectoryFiles})
	}
	if span.Recording() {
		span.Set(telemetry.Int(telemetry.KeyFiles, len(files)), telemetry.Bool("ragd.sync", pl.Sync))
	}
	span.End(err)
	if err != nil {
		if ragd.KindOf(err) == ragd.KindInternal || ragd.KindOf(err) == ragd.KindTooLarge {
			err = &document.ParseError{Source: pl.DirectoryPath, Err: err}
		}
		return res, err
	}
	ids := make([]string, len(files))
	ref := jobs.Ref{ID: parentID, Type: jobs.TypeIngestDirectory, Namespace: pl.Namespace, CreatedAt: pl.CreatedAt}
	done, err := p.Queue.CompletedFiles(ctx, parentID) // files an earlier run of this job indexed
	if err != nil {
		return res, err
	}
	for i, f := range files {
		if i%cancelCheckEvery == 0 {
			if err := p.stopIfCancelled(ctx, ref, ids[:i], files[:i]); err != nil {
				return res, err
			}
		}
		ids[i] = ChildJobID(parentID, i)
		if pl.Sync {
			// A retried sync plans again and may list other files: the id
			// follows the file, not its place in the list.
			ids[i] = SyncChildJobID(parentID, f)
		}
		if done[ids[i]] {
			continue
		}
		src := ragd.FileURI(f)
		err := p.Queue.EnqueueDocument(ctx, ids[i], jobs.DocumentPayload{
			Namespace: pl.Namespace, DocumentID: ragd.DocumentID(pl.Namespace, src), Source: src,
			FilePath: f, Tags: pl.Tags, Access: pl.Access, Viewer: pl.Viewer, Force: pl.Force, ParentID: parentID, CreatedAt: pl.CreatedAt,
		})
		if err != nil {
			return res, err
		}
	}
	rep.Children(ids, files)
	res.FilesTotal = len(files) + res.FilesUnchanged
	p.Log.InfoContext(ctx, "directory fanned out", "kb_name", pl.Namespace, "directory", dir, "files", len(files),
		"unchanged", res.FilesUnchanged, "deleted", res.DocumentsDeleted)
	return res, nil
}

// syncPlan plans a sync, deletes what it finds gone and returns the files
// to index. A retried job plans again: what an earlier run deleted is gone
// from the plan, and files it already indexed are unchanged by then.
func (p *Pipeline) syncPlan(ctx context.Context, pl jobs.DirectoryPayload, dir string, res *ragd.DirectoryResult) ([]string, error) {
	plan, err := syncplan.Make(ctx, p.Registry, p.Reader.Roots, syncplan.Scope{Namespace: pl.Namespace, Dir: dir,
		Recursive: pl.Recursive, Prune: pl.Prune, MaxFiles: p.MaxDirectoryFiles, IncludeIgnored: pl.IncludeIgnored, Access: pl.Access})
	if err != nil {
		return nil, err
	}
	for _, d := range plan.Deleted {
		if _, err := p.Versions.Remove(ctx, pl.Namespace, d.DocumentID); err != nil {
			return nil, err
		}
		res.DocumentsDeleted++
	}
	res.FilesUnchanged = plan.Unchanged
	return append(plan.Added, plan.Changed...), nil
}

// cancelCheckEvery is how many files a directory enqueues between its
// checks for a cancel.
const cancelCheckEvery = 20

// stopIfCancelled returns ErrCancelled, after recording the files enqueued
// so far for the cancel to stop, if the directory job was cancelled.
func (p *Pipeline) stopIfCancelled(ctx context.Context, ref jobs.Ref, ids, files []string) error {
	cancelled, err := p.Queue.Cancelled(ctx, ref)
	if err != nil || !cancelled {
		return err
	}
	if err := p.Queue.StoppedWithChildren(ctx, ref.ID, ids, files); err != nil {
		return err
	}
	return jobs.ErrCancelled
}

// ChildJobID is the job id of a directory job's n-th file.
func ChildJobID(parentID string, n int) string { return fmt.Sprintf("%s.%d", parentID, n) }

// SyncChildJobID is a sync's child job id for a file (a path, or a
// source's path): it follows the file, not its place in the list.
func SyncChildJobID(parentID, path string) string {
	sum := sha256.Sum256([]byte(path))
	return parentID + "." + hex.EncodeToString(sum[:8])
}
