package jobs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/hibiken/asynq"
	"github.com/redis/go-redis/v9"

	"ragd"
)

// ctlFields are the fields of a control record that a job's state needs.
var ctlFields = []string{"status", "job", "children"}

// record is one job as read from Redis: its task (nil once gone) and its
// control record.
type record struct {
	id       string
	info     *asynq.TaskInfo
	ctl      string // status: "", cancelled or committing
	job      string // the cancelled job's JSON
	children string // a cancelled directory's child refs' JSON
	outcome  string // a completed file job's outcome (outcome.go)
}

// readRecords reads the tasks and control records of ids, one pipelined
// round trip per childBatch of them. A task that does not exist leaves
// info nil; a record that cannot be read fails the whole read.
func (q *Queue) readRecords(ctx context.Context, ids []string) ([]record, error) {
	ctx = context.WithoutCancel(ctx) // as in childStates: report real states even as a wait runs out
	out := make([]record, len(ids))
	for start := 0; start < len(ids); start += childBatch {
		batch := ids[start:min(start+childBatch, len(ids))]
		tasks, ctls := make([]*redis.SliceCmd, len(batch)), make([]*redis.SliceCmd, len(batch))
		outcomes := make([]*redis.StringCmd, len(batch))
		_, err := q.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
			for i, id := range batch {
				tasks[i] = p.HMGet(ctx, q.keys.Task(id), taskFields...)
				ctls[i] = p.HMGet(ctx, q.keys.Control(id), ctlFields...)
				outcomes[i] = q.readOutcome(ctx, p, id)
			}
			return nil
		})
		if err != nil && !errors.Is(err, redis.Nil) {
			return nil, err
		}
		for _, cmd := range outcomes { // a missing outcome is redis.Nil, which Exec may have returned
			if cmd != nil && cmd.Err() != nil && !errors.Is(cmd.Err(), redis.Nil) {
				return nil, cmd.Err()
			}
		}
		for i := range batch {
			r := &out[start+i]
			r.id = batch[i]
			info, err := taskInfoOf(tasks[i].Val())
			if err != nil && !errors.Is(err, asynq.ErrTaskNotFound) {
				return nil, fmt.Errorf("job %s: %w", batch[i], err)
			}
			r.info = info
			vals := ctls[i].Val()
			r.ctl, r.job, r.children = str(vals[0]), str(vals[1]), str(vals[2])
			if outcomes[i] != nil {
				r.outcome = outcomes[i].Val()
			}
		}
	}
	return out, nil
}

// readJobs reads the jobs of ids, nil for those that do not exist (any more).
func (q *Queue) readJobs(ctx context.Context, ids []string) ([]*ragd.Job, error) {
	recs, err := q.readRecords(ctx, ids)
	if err != nil {
		return nil, err
	}
	out := make([]*ragd.Job, len(ids))
	for i, r := range recs {
		out[i] = q.jobOf(ctx, r)
	}
	return out, nil
}

// jobOf turns a record into the job agents see. A cancelled job is what
// its control record holds, its task being removed; a directory's files
// are aggregated either way.
func (q *Queue) jobOf(ctx context.Context, r record) *ragd.Job {
	var job *ragd.Job
	rep := &report{}
	switch {
	case r.ctl == ctlCancelled && r.job != "":
		job = &ragd.Job{}
		if json.Unmarshal([]byte(r.job), job) != nil {
			return nil
		}
		if r.children != "" {
			_ = json.Unmarshal([]byte(r.children), &rep.Children)
		} else if r.info != nil {
			_, rep = fromTaskInfo(r.info) // cancelled before its children were recorded
		}
	case r.outcome != "":
		// Written as the job completed, just before Asynq deletes its task.
		return outcomeJob(r.id, r.outcome)
	case r.info == nil:
		return nil
	default:
		job, rep = fromTaskInfo(r.info)
	}
	if job.Type == TypeIngestDirectory {
		q.aggregateChildren(ctx, job, rep)
	}
	return job
}

func str(v any) string {
	s, _ := v.(string)
	return s
}
