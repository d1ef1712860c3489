package worker

import (
	"context"
	"fmt"
	"os"

	"ragd"
	"ragd/ingest"
	"ragd/jobs"
)

// IndexDirectory lists the directory's supported files and enqueues one
// document job per file. Child ids derive from the parent's, so a retried
// parent re-enqueues the same children and Asynq drops the repeats.
func (p *Pipeline) IndexDirectory(ctx context.Context, parentID string, pl jobs.DirectoryPayload, rep *jobs.Reporter) (ragd.DirectoryResult, error) {
	res := ragd.DirectoryResult{DirectoryPath: pl.DirectoryPath}
	dir, err := p.Reader.Roots.Resolve(pl.DirectoryPath)
	if err != nil {
		return res, &ingest.ParseError{Source: pl.DirectoryPath, Err: err}
	}
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return res, &ingest.ParseError{Source: pl.DirectoryPath, Err: fmt.Errorf("not a directory")}
	}
	files, err := ingest.WalkFiles(dir, pl.Recursive, p.Reader.Roots, p.MaxDirectoryFiles)
	if err != nil {
		return res, &ingest.ParseError{Source: pl.DirectoryPath, Err: err}
	}
	ids := make([]string, len(files))
	ref := jobs.Ref{ID: parentID, Type: jobs.TypeIngestDirectory, Namespace: pl.Namespace, CreatedAt: pl.CreatedAt}
	for i, f := range files {
		if i%cancelCheckEvery == 0 {
			if err := p.stopIfCancelled(ctx, ref, ids[:i], files[:i]); err != nil {
				return res, err
			}
		}
		ids[i] = ChildJobID(parentID, i)
		source := "file://" + f
		err := p.Queue.EnqueueDocument(ctx, ids[i], jobs.DocumentPayload{
			Namespace: pl.Namespace, DocumentID: ragd.DocumentID(pl.Namespace, source), Source: source,
			FilePath: f, Tags: pl.Tags, Force: pl.Force, ParentID: parentID, CreatedAt: pl.CreatedAt,
		})
		if err != nil {
			return res, err
		}
	}
	rep.Children(ids, files)
	res.FilesTotal = len(files)
	p.Log.Info("directory fanned out", "kb_name", pl.Namespace, "directory", dir, "files", len(files))
	return res, nil
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
