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
	for i, f := range files {
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

// ChildJobID is the job id of a directory job's n-th file.
func ChildJobID(parentID string, n int) string { return fmt.Sprintf("%s.%d", parentID, n) }
