package worker

import (
	"context"
	"errors"
	"fmt"
	"time"

	"ragd"
	"ragd/internal/ingest/document"
	"ragd/internal/jobs"
	"ragd/internal/jobs/sourcesync"
)

// SyncSource runs a source's sync, a directory job whose files come from
// the plan of the source's kind (a failure there fails the job before
// anything is deleted): the documents of gone items removed, one document
// job per added or changed item — staged as upload bytes — with ids that
// follow the item, so a retried sync skips the items it finished. The
// source then records the commit (git) and its kind what its next plan
// compares with.
func (p *Pipeline) SyncSource(ctx context.Context, parentID string, pl jobs.DirectoryPayload, rep *jobs.Reporter) (ragd.DirectoryResult, error) {
	res := ragd.DirectoryResult{DirectoryPath: pl.DirectoryPath}
	if p.Sources == nil {
		return res, &document.ParseError{Source: pl.DirectoryPath, Err: errors.New("this worker runs no source syncs")}
	}
	src, err := p.Sources.Get(ctx, pl.SourceID)
	if err != nil {
		return res, err
	}
	kind, err := p.Kinds.For(src.Kind)
	if err != nil {
		return res, &document.ParseError{Source: pl.DirectoryPath, Err: fmt.Errorf("this worker syncs no %s source", src.Kind)}
	}
	plan, err := kind.Plan(ctx, src, pl.Force)
	if err != nil {
		p.recordSync(ctx, src.ID, ragd.SourceSync{JobID: parentID, Outcome: "failed", Error: ragd.PublicMessage(err)}, "")
		return res, err
	}
	for _, d := range plan.Deleted {
		if _, err := p.Versions.Remove(ctx, pl.Namespace, d.DocumentID); err != nil {
			return res, err
		}
		res.DocumentsDeleted++
	}
	files := append(append([]string{}, plan.Added...), plan.Changed...)
	ids, err := p.enqueueSourceFiles(ctx, parentID, pl, kind, plan, files)
	if err != nil {
		return res, err
	}
	if err := kind.Synced(ctx, plan); err != nil {
		return res, err
	}
	rep.Children(ids, files)
	res.FilesTotal, res.FilesUnchanged = len(files)+plan.Unchanged, plan.Unchanged
	res.FilesAdded, res.FilesChanged, res.FilesMoved, res.Commit = len(plan.Added), len(plan.Changed), len(plan.Moved), plan.Commit
	p.recordSync(ctx, src.ID, ragd.SourceSync{JobID: parentID, Outcome: "enqueued", Commit: plan.Commit, Added: len(plan.Added),
		Changed: len(plan.Changed), Unchanged: plan.Unchanged, Deleted: res.DocumentsDeleted, Moved: len(plan.Moved)}, plan.Commit)
	p.Log.InfoContext(ctx, "source synced", "kb_name", pl.Namespace, "source_id", src.ID, "commit", plan.Commit,
		"added", len(plan.Added), "changed", len(plan.Changed), "unchanged", plan.Unchanged, "deleted", res.DocumentsDeleted)
	return res, nil
}

// enqueueSourceFiles stages each file's blob and enqueues its document
// job, skipping those an earlier run of the job finished. Each job is
// Distinct: another document holding the same content (a copy, another
// file changed to this content) must not keep this path from a document
// of its own. None is forced, even in a forced sync (whose force
// overrides the sync's guards): an unchanged content is read but not
// embedded again.
func (p *Pipeline) enqueueSourceFiles(ctx context.Context, parentID string, pl jobs.DirectoryPayload, kind sourcesync.Kind, plan *sourcesync.Plan, files []string) ([]string, error) {
	ids := make([]string, len(files))
	ref := jobs.Ref{ID: parentID, Type: jobs.TypeIngestDirectory, Namespace: pl.Namespace, CreatedAt: pl.CreatedAt}
	done, err := p.Queue.CompletedFiles(ctx, parentID)
	if err != nil {
		return nil, err
	}
	src := plan.Src
	for i, f := range files {
		if i%cancelCheckEvery == 0 {
			if err := p.stopIfCancelled(ctx, ref, ids[:i], files[:i]); err != nil {
				return nil, err
			}
		}
		ids[i] = SyncChildJobID(parentID, f)
		if done[ids[i]] {
			continue
		}
		staged, err := kind.Stage(ctx, plan, f)
		if err != nil {
			return nil, err
		}
		err = p.Queue.EnqueueDocument(ctx, ids[i], jobs.DocumentPayload{
			Namespace: pl.Namespace, DocumentID: ragd.DocumentID(pl.Namespace, staged.Source), Source: staged.Source,
			SourceType: staged.Type, FilePath: staged.Path, Upload: staged.Upload, Filename: staged.Filename, WebURL: staged.WebURL, Commit: plan.Commit,
			Tags: src.Tags, Access: pl.Access, Viewer: pl.Viewer, Distinct: true, MoveFrom: plan.MovedFrom(f),
			ParentID: parentID, CreatedAt: pl.CreatedAt,
		})
		if err != nil {
			return nil, err
		}
	}
	return ids, nil
}

// recordSync records how a sync went on its source and, when commit is
// set, the commit the next sync diffs from. A source deleted meanwhile
// is left deleted.
func (p *Pipeline) recordSync(ctx context.Context, id string, sync ragd.SourceSync, commit string) {
	sync.At = time.Now().UTC()
	_, err := p.Sources.Update(ctx, id, func(s *ragd.Source) error {
		s.LastSync = &sync
		if commit != "" {
			s.Commit = commit
		}
		return nil
	})
	if err != nil && ragd.KindOf(err) != ragd.KindNotFound {
		p.Log.WarnContext(ctx, "source sync not recorded", "source_id", id, "err", err)
	}
}
