package worker

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
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
	ids, files, unread, err := p.enqueueSourceFiles(ctx, parentID, pl, kind, plan, files)
	if err != nil {
		return res, err
	}
	res.FilesUnread = len(unread)
	if err := kind.Synced(ctx, plan); err != nil {
		return res, err
	}
	rep.Children(ids, files)
	res.FilesTotal, res.FilesUnchanged = len(files)+plan.Unchanged+len(unread), plan.Unchanged
	res.FilesAdded, res.FilesChanged, res.FilesMoved, res.Commit = len(plan.Added), len(plan.Changed), len(plan.Moved), plan.Commit
	p.recordSync(ctx, src.ID, ragd.SourceSync{JobID: parentID, Outcome: "enqueued", Commit: plan.Commit, Added: len(plan.Added),
		Changed: len(plan.Changed), Unchanged: plan.Unchanged, Deleted: res.DocumentsDeleted, Moved: len(plan.Moved), Failed: len(unread), Unread: firstUnread(unread)}, plan.Commit)
	p.Log.InfoContext(ctx, "source synced", "kb_name", pl.Namespace, "source_id", src.ID, "commit", plan.Commit,
		"added", len(plan.Added), "changed", len(plan.Changed), "unchanged", plan.Unchanged, "deleted", res.DocumentsDeleted)
	return res, nil
}

// enqueueSourceFiles stages each item and enqueues its document job,
// skipping those an earlier run of the job finished, and returns the
// jobs and their items. An item its kind could not stage (too large,
// gone since it was listed), like one the plan could not read
// (Plan.Failed), is unread, with why: its document is kept, and the
// other items are synced; only a dependency's failure fails the job,
// to be retried. Each job is
// Distinct: another document holding the same content (a copy, another
// file changed to this content) must not keep this path from a document
// of its own. None is forced, even in a forced sync (whose force
// overrides the sync's guards): an unchanged content is read but not
// embedded again.
func (p *Pipeline) enqueueSourceFiles(ctx context.Context, parentID string, pl jobs.DirectoryPayload, kind sourcesync.Kind, plan *sourcesync.Plan, items []string) (ids, files []string, unread map[string]string, err error) {
	ref := jobs.Ref{ID: parentID, Type: jobs.TypeIngestDirectory, Namespace: pl.Namespace, CreatedAt: pl.CreatedAt}
	done, err := p.Queue.CompletedFiles(ctx, parentID)
	if err != nil {
		return nil, nil, nil, err
	}
	unread = maps.Clone(plan.Failed)
	src := plan.Src
	for i, f := range items {
		if i%cancelCheckEvery == 0 {
			if err := p.stopIfCancelled(ctx, ref, ids, files); err != nil {
				return nil, nil, nil, err
			}
		}
		id := SyncChildJobID(parentID, f)
		if done[id] {
			ids, files = append(ids, id), append(files, f)
			continue
		}
		staged, err := kind.Stage(ctx, plan, f)
		if ragd.KindOf(err) == ragd.KindUnavailable || ctx.Err() != nil {
			return nil, nil, nil, err
		}
		if err != nil {
			if unread == nil {
				unread = map[string]string{}
			}
			unread[f] = ragd.PublicMessage(err)
			continue
		}
		ids, files = append(ids, id), append(files, f)
		err = p.Queue.EnqueueDocument(ctx, id, jobs.DocumentPayload{
			Namespace: pl.Namespace, DocumentID: ragd.DocumentID(pl.Namespace, staged.Source), Source: staged.Source,
			SourceType: staged.Type, FilePath: staged.Path, Upload: staged.Upload, Filename: staged.Filename, WebURL: staged.WebURL, Commit: plan.Commit,
			Tags: src.Tags, Access: pl.Access, Viewer: pl.Viewer, Distinct: true, MoveFrom: plan.MovedFrom(f),
			ParentID: parentID, CreatedAt: pl.CreatedAt,
		})
		if err != nil {
			return nil, nil, nil, err
		}
	}
	return ids, files, unread, nil
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

// firstUnread is up to ragd.MaxUnreadListed of the unread items, the
// first by name.
func firstUnread(unread map[string]string) map[string]string {
	if len(unread) <= ragd.MaxUnreadListed {
		return unread
	}
	out := map[string]string{}
	for _, k := range slices.Sorted(maps.Keys(unread))[:ragd.MaxUnreadListed] {
		out[k] = unread[k]
	}
	return out
}
