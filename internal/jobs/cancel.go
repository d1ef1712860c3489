package jobs

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"

	"ragd"
)

// Cancel stops job (as Job read it) and records it cancelled. A waiting
// task that never ran is removed from the queue (one that ran and failed
// before is run at once instead, to remove what it wrote, and ends without
// running the pipeline); a running one is stopped through Asynq's
// CancelProcessing, which cancels its handler's context on the worker that
// runs it, and its run then removes what it wrote (the document's previous
// version stays current). A directory stops fanning out and its unfinished
// files are cancelled the same way. Cancel returns once those runs have
// stopped, or after stopWait.
//
// A job that has ended, or has begun to commit its result, is a
// KindConflict error.
func (q *Queue) Cancel(ctx context.Context, job *ragd.Job) error {
	if job.Status.Terminal() {
		return ragd.Conflict("job %s is already %s", job.ID, job.Status)
	}
	now := time.Now().UTC()
	snap := *job
	snap.Children, snap.Status, snap.CompletedAt, snap.Error = nil, ragd.JobCancelled, &now, ""
	if job.Type == TypeIngestDirectory {
		return q.cancelDirectory(ctx, &snap, job.Children)
	}
	states, err := q.mark(ctx, []ragd.Job{snap}, true, true)
	if err != nil {
		return err
	}
	if err := q.refusal(job.ID, states[0]); err != nil {
		return err
	}
	var s stopper
	s.stop(q, job.ID, states[0], job.Retried)
	s.wait(ctx, q)
	return nil
}

// refusal is why a job whose mark returned state was not cancelled, or nil.
func (q *Queue) refusal(id, state string) error {
	switch state {
	case ctlCancelled:
		return ragd.Conflict("job %s is already cancelled", id)
	case ctlCommitting:
		return ragd.Conflict("job %s is already making its result current and can no longer be cancelled", id)
	case "completed":
		return ragd.Conflict("job %s is already completed", id)
	case "archived":
		return ragd.Conflict("job %s is already failed", id)
	case "missing":
		return q.NotFound(id)
	}
	return nil
}

// cancelDirectory marks the directory cancelled, stops its fan-out if it
// is running, and cancels every file job that has not ended.
func (q *Queue) cancelDirectory(ctx context.Context, snap *ragd.Job, children []ragd.ChildJob) error {
	states, err := q.mark(ctx, []ragd.Job{*snap}, false, true)
	if err != nil {
		return err
	}
	switch state := states[0]; state {
	case ctlCancelled:
		return ragd.Conflict("job %s is already cancelled", snap.ID)
	case "completed":
		// Fanned out: its files are those read with it.
	default:
		var s stopper
		if state == "active" {
			// Fanning out: it stops at its next check and records the
			// files it enqueued; its context stays alive so that it can.
			s.running = []string{snap.ID}
		} else {
			// Not begun. Files a failed run enqueued before its retry
			// cancel themselves when they start.
			s.stop(q, snap.ID, state, 0)
		}
		s.wait(ctx, q)
		if children, err = q.recordedChildren(ctx, snap.ID); err != nil {
			return err
		}
	}
	if err := q.recordChildren(ctx, snap.ID, children); err != nil {
		return err
	}
	files, err := q.unfinished(ctx, snap, children)
	if err != nil {
		return err
	}
	if states, err = q.mark(ctx, files, true, false); err != nil {
		return err
	}
	var s stopper
	s.stopAll(q, files, states)
	s.wait(ctx, q)
	return nil
}

// unfinished returns, as they read once cancelled, the directory's files
// that have not ended, with their attempts so far (Retried).
func (q *Queue) unfinished(ctx context.Context, dir *ragd.Job, children []ragd.ChildJob) ([]ragd.Job, error) {
	var ids []string
	for _, c := range children {
		if !c.Status.Terminal() {
			ids = append(ids, c.ID)
		}
	}
	recs, err := q.readRecords(ctx, ids)
	if err != nil {
		return nil, ragd.Unavailable("redis", err)
	}
	out := make([]ragd.Job, len(ids))
	for i, id := range ids {
		r := Ref{ID: id, ParentID: dir.ID, Type: TypeIngestDocument, Namespace: dir.Namespace, CreatedAt: dir.CreatedAt}
		out[i] = r.cancelledJob(*dir.CompletedAt)
		if info := recs[i].info; info != nil {
			out[i].Retried = info.Retried
		}
	}
	return out, nil
}

// recordedChildren reads the files a directory enqueued before it stopped:
// those its run recorded when it found itself cancelled, or those its
// report lists when it finished fanning out first.
func (q *Queue) recordedChildren(ctx context.Context, id string) ([]ragd.ChildJob, error) {
	recs, err := q.readRecords(ctx, []string{id})
	if err != nil {
		return nil, err
	}
	var refs []childRef
	switch r := recs[0]; {
	case r.children != "":
		err = json.Unmarshal([]byte(r.children), &refs)
	case r.info != nil:
		_, rep := fromTaskInfo(r.info)
		refs = rep.Children
	}
	out := make([]ragd.ChildJob, len(refs))
	for i, c := range refs {
		out[i] = ragd.ChildJob{ID: c.ID, FilePath: c.FilePath, Status: ragd.JobQueued}
	}
	return out, err
}

// recordChildren keeps a cancelled directory's files with its record, so
// they are listed after its task is gone.
func (q *Queue) recordChildren(ctx context.Context, id string, children []ragd.ChildJob) error {
	refs := make([]childRef, len(children))
	for i, c := range children {
		refs[i] = childRef{ID: c.ID, FilePath: c.FilePath}
	}
	body, err := json.Marshal(refs)
	if err != nil {
		return err
	}
	return setIfPresentScript.Run(ctx, q.rdb, []string{q.keys.Control(id)}, "children", body).Err()
}

// mark runs markCancelScript for each job (checking the task's state when
// check is set; counting the jobs in the cancelled set when topLevel is),
// one pipelined round trip per childBatch, and returns what each run
// returned.
func (q *Queue) mark(ctx context.Context, jobs []ragd.Job, check, topLevel bool) ([]string, error) {
	if len(jobs) == 0 {
		return nil, nil
	}
	if err := markCancelScript.Load(ctx, q.rdb).Err(); err != nil {
		return nil, ragd.Unavailable("redis", err)
	}
	checkArg, countArg := flag(check), flag(topLevel)
	now, ttl := time.Now().UnixMilli(), seconds(q.cancelTTL())
	out := make([]string, len(jobs))
	for start := 0; start < len(jobs); start += childBatch {
		batch := jobs[start:min(start+childBatch, len(jobs))]
		cmds := make([]*redis.Cmd, len(batch))
		_, err := q.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
			for i, j := range batch {
				body, err := json.Marshal(j)
				if err != nil {
					return err
				}
				outcomes, field := q.keys.Control(j.ID), ""
				if parent, suffix, ok := parentOf(j.ID); ok {
					outcomes, field = q.keys.Files(parent), suffix
				}
				cmds[i] = markCancelScript.EvalSha(ctx, p, []string{q.keys.Control(j.ID), q.keys.Task(j.ID), q.keys.Cancelled(), outcomes},
					body, ttl, now, checkArg, j.ID, countArg, field)
			}
			return nil
		})
		if err != nil {
			return nil, ragd.Unavailable("redis", fmt.Errorf("cancel: %w", err))
		}
		for i, cmd := range cmds {
			out[start+i], _ = cmd.Val().(string)
			if marked(out[start+i], check) {
				q.countedAs(ctx, batch[i].ID)
			}
		}
	}
	return out, nil
}

// marked reports whether markCancelScript, returning state, recorded the
// job cancelled.
func marked(state string, check bool) bool {
	switch state {
	case ctlCancelled, ctlCommitting:
		return false
	case "completed", "archived", "missing":
		return !check
	}
	return true
}
