package sourcesvc

import (
	"context"
	"slices"
	"time"

	"ragd"
	"ragd/internal/jobs"
	"ragd/internal/library"
)

// Update changes a source. A change of what it reads (ref, include,
// exclude) forgets the last synced commit, so the next sync compares
// every file with the documents instead of diffing; the kinds that keep
// a state of their own compare it with what the source reads now.
func (s *Sources) Update(ctx context.Context, id string, req SourcePatch) (ragd.Source, error) {
	cur, err := s.Get(ctx, id)
	if err == nil {
		err = readOnly(cur)
	}
	if err != nil {
		return ragd.Source{}, err
	}
	var access *[]string
	if req.Access != nil {
		a, err := library.AccessParam(*req.Access)
		if err != nil {
			return ragd.Source{}, err
		}
		access = a
	}
	return s.Store.Update(ctx, id, func(src *ragd.Source) error {
		before := *src
		setIf(&src.Ref, req.Ref)
		setIf(&src.Include, req.Include)
		setIf(&src.Exclude, req.Exclude)
		setIf(&src.Every, req.Every)
		setIf(&src.SSHKey, req.SSHKey)
		setIf(&src.AccessKey, req.AccessKey)
		setIf(&src.SecretKey, req.SecretKey)
		setIf(&src.Region, req.Region)
		setIf(&src.MaxPages, req.MaxPages)
		setIf(&src.MaxDepth, req.MaxDepth)
		setIf(&src.Tags, req.Tags)
		setIf(&src.Access, access)
		if err := s.check(ctx, *src); err != nil {
			return err
		}
		if src.Ref != before.Ref || !slices.Equal(src.Include, before.Include) || !slices.Equal(src.Exclude, before.Exclude) {
			src.Commit = ""
		}
		if src.Every != before.Every {
			src.NextSync = s.next(*src, time.Now())
		}
		return nil
	})
}

func setIf[T any](dst *T, v *T) {
	if v != nil {
		*dst = *v
	}
}

// Delete deletes a source and, unless keepDocuments, the documents it
// brought that the caller sees.
func (s *Sources) Delete(ctx context.Context, id string, keepDocuments bool) (SourceDeleted, error) {
	src, err := s.Get(ctx, id)
	if err != nil {
		return SourceDeleted{}, err
	}
	out := SourceDeleted{SourceID: id}
	if err := readOnly(src); err != nil {
		return out, err
	}
	kind, err := s.Kinds.For(src.Kind)
	if err != nil {
		return out, err
	}
	if !keepDocuments {
		refs, err := kind.Documents(ctx, src)
		if err != nil {
			return out, err
		}
		for _, r := range refs {
			if _, err := s.Versions.Remove(ctx, src.Namespace, r.DocumentID); err != nil {
				return out, err
			}
			out.DocumentsDeleted++
		}
	}
	if err := s.Store.Delete(ctx, id); err != nil {
		return out, err
	}
	_ = kind.Forget(ctx, src)
	return out, nil
}

// Sync starts a sync of the source now as the caller (its audience, as a
// directory sync's), or with DryRun answers its plan.
func (s *Sources) Sync(ctx context.Context, id string, req SyncSourceRequest) (library.Enqueued, *SourcePlan, error) {
	src, err := s.Get(ctx, id)
	if err != nil {
		return library.Enqueued{}, nil, err
	}
	if e, ok := s.watched(id); ok {
		return s.syncWatched(ctx, e, req)
	}
	if req.DryRun {
		kind, err := s.Kinds.For(src.Kind)
		if err != nil {
			return library.Enqueued{}, nil, err
		}
		plan, err := kind.Plan(ctx, src, req.Force)
		return library.Enqueued{}, plan, err
	}
	e, err := s.start(ctx, src, jobs.NewJobID(), library.ViewerOf(ctx), req.Force)
	return e, nil, err
}

// start enqueues a sync of src under jobID, unless the last one is still
// queued or running: then that one is answered.
func (s *Sources) start(ctx context.Context, src ragd.Source, jobID string, viewer *[]string, force bool) (library.Enqueued, error) {
	if last := src.LastSync; last != nil && last.JobID != "" {
		if j, err := s.Queue.Job(ctx, last.JobID); err == nil && !j.Status.Terminal() {
			return library.Enqueued{JobID: &j.ID, Status: j.Status, Source: src.URL}, nil
		}
	}
	access := src.Access
	if access == nil {
		access = []string{}
	}
	// Recorded first (the worker's record of the run comes after it), and
	// only if no other sync was recorded since src was read: a sync
	// started meanwhile is answered instead.
	var other string
	_, err := s.Store.Update(ctx, src.ID, func(r *ragd.Source) error {
		other = ""
		if r.LastSync != nil && (src.LastSync == nil || r.LastSync.JobID != src.LastSync.JobID) && r.LastSync.JobID != jobID {
			other = r.LastSync.JobID
			return nil
		}
		r.LastSync = &ragd.SourceSync{JobID: jobID, At: time.Now().UTC(), Outcome: string(ragd.JobQueued)}
		return nil
	})
	if err != nil {
		return library.Enqueued{}, err
	}
	if other != "" {
		return library.Enqueued{JobID: &other, Status: ragd.JobQueued, Source: src.URL}, nil
	}
	err = s.Queue.EnqueueDirectory(ctx, jobID, jobs.DirectoryPayload{Namespace: src.Namespace, DirectoryPath: src.URL,
		SourceID: src.ID, Tags: src.Tags, Access: &access, Viewer: viewer, Force: force, Sync: true, Prune: true,
		CreatedAt: time.Now().UTC()})
	if err != nil {
		return library.Enqueued{}, library.EnqueueFailed(err)
	}
	return library.Enqueued{JobID: &jobID, Status: ragd.JobQueued, Source: src.URL}, nil
}
