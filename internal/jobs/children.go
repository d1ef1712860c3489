package jobs

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/hibiken/asynq"
	"github.com/redis/go-redis/v9"

	"ragd"
)

// childBatch is how many child tasks one Redis round trip reads: a
// directory at ingest.max_directory_files (10,000) takes 20 round trips,
// and no single reply grows past a few hundred task records.
const childBatch = 500

// aggregateChildren fills in a directory job's per-file jobs and derives the
// directory's progress, result and status from them.
func (q *Queue) aggregateChildren(ctx context.Context, job *ragd.Job, rep *report) {
	if len(rep.Children) == 0 {
		return
	}
	result := ragd.DirectoryResult{FilesTotal: len(rep.Children)}
	if job.Result != nil {
		_ = json.Unmarshal(job.Result, &result)
	}
	result.FilesIndexed, result.FilesFailed, result.FilesCancelled, result.ChunksIndexed = 0, 0, 0, 0
	done := 0
	var last time.Time
	states := q.childStates(ctx, rep.Children)
	for i, c := range rep.Children {
		child := ragd.ChildJob{ID: c.ID, FilePath: c.FilePath, Status: ragd.JobActive}
		info, err := states[i].info, states[i].err
		o, completed := parseOutcome(states[i].outcome)
		switch {
		case states[i].ctl == ctlCancelled:
			child.Status = ragd.JobCancelled
		case completed:
			// Read straight from the outcome: a large directory's files
			// are mostly these, read again at every poll.
			child.Status, child.Chunks = ragd.JobCompleted, o.Chunks
			if t := time.Unix(o.CompletedAt, 0).UTC(); t.After(last) {
				last = t
			}
		case errors.Is(err, asynq.ErrTaskNotFound):
			// Its record expired: it finished more than the retention ago.
			child.Status = ragd.JobCompleted
		case err != nil:
			child.Error = "state unknown: " + err.Error()
		default:
			cj, _ := fromTaskInfo(info)
			child.Status, child.Error = cj.Status, cj.Error
			var r ragd.DocumentResult
			if cj.Result != nil && json.Unmarshal(cj.Result, &r) == nil {
				child.Chunks = r.ChunksIndexed
			}
			if cj.CompletedAt != nil && cj.CompletedAt.After(last) {
				last = *cj.CompletedAt
			}
		}
		switch child.Status {
		case ragd.JobCompleted:
			done++
			result.FilesIndexed++
			result.ChunksIndexed += child.Chunks
		case ragd.JobFailed:
			done++
			result.FilesFailed++
		case ragd.JobCancelled:
			done++
			result.FilesCancelled++
		}
		job.Children = append(job.Children, child)
	}
	job.Progress = ragd.Progress{Done: done, Total: len(rep.Children), Unit: "files"}
	job.Result, _ = json.Marshal(result)
	if job.Status == ragd.JobCompleted {
		if done < len(rep.Children) {
			job.Status, job.CompletedAt = ragd.JobActive, nil
		} else if !last.IsZero() {
			job.CompletedAt = &last
		}
	}
}

// childState is one child task as read, or why it could not be read, and
// its control record's status.
type childState struct {
	info    *asynq.TaskInfo
	err     error
	ctl     string
	outcome string // a completed file job's (outcome.go)
}

// childStates reads the children's tasks with one pipelined round trip per
// childBatch of them, where the inspector would take two per child.
func (q *Queue) childStates(ctx context.Context, children []childRef) []childState {
	// The inspector ignores cancellation; so does this, so that a poll whose
	// wait has just run out still reports every child's real state.
	ctx = context.WithoutCancel(ctx)
	out := make([]childState, len(children))
	cmds := make([]*redis.SliceCmd, 0, min(len(children), childBatch))
	ctls := make([]*redis.StringCmd, 0, min(len(children), childBatch))
	outcomes := make([]*redis.StringCmd, 0, min(len(children), childBatch))
	for start := 0; start < len(children); start += childBatch {
		batch := children[start:min(start+childBatch, len(children))]
		cmds, ctls, outcomes = cmds[:0], ctls[:0], outcomes[:0]
		// Each command carries its own error, read below; Exec's is the first of them.
		_, _ = q.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
			for _, c := range batch {
				cmds = append(cmds, p.HMGet(ctx, q.keys.Task(c.ID), taskFields...))
				ctls = append(ctls, p.HGet(ctx, q.keys.Control(c.ID), "status"))
				outcomes = append(outcomes, q.readOutcome(ctx, p, c.ID))
			}
			return nil
		})
		for i, cmd := range cmds {
			vals, err := cmd.Result()
			if err == nil {
				out[start+i].info, err = taskInfoOf(vals)
			}
			out[start+i].err = err
			out[start+i].ctl = ctls[i].Val()
			if outcomes[i] != nil {
				out[start+i].outcome = outcomes[i].Val()
			}
		}
	}
	return out
}
