package jobs

import (
	"context"
	"encoding/json"
	"strings"
	"time"

	"github.com/hibiken/asynq"

	"ragd"
)

// Job reads a job's state. A directory job stays active until every file job
// it fanned out has finished; its progress counts those files. A job
// asked for by a principal who saw what ctx's audience may not
// (ragd.Audience.SeesJobsOf) is not found, exactly as an unknown one.
func (q *Queue) Job(ctx context.Context, id string) (*ragd.Job, error) {
	jobs, err := q.readJobs(ctx, []string{id})
	if err != nil {
		return nil, ragd.Unavailable("redis", err)
	}
	if jobs[0] == nil {
		return nil, q.NotFound(id)
	}
	if aud := ragd.AudienceIn(ctx); !aud.All() {
		key, err := q.Viewer(ctx, id)
		if err != nil {
			return nil, ragd.Unavailable("redis", err)
		}
		if !aud.SeesJobsOf(key) {
			return nil, q.NotFound(id)
		}
	}
	return jobs[0], nil
}

// NotFound is the one answer for a job id the caller may not read: unknown,
// expired, or another namespace's. Every path (status, cancel, over REST
// and MCP) gives exactly this, so the answer never tells a key that some
// other namespace's job exists.
func (q *Queue) NotFound(id string) error {
	return ragd.NotFound("job %q not found (unknown id, or finished more than %s ago)", id, q.opts.Retention)
}

func fromTaskInfo(info *asynq.TaskInfo) (*ragd.Job, *report) {
	job := &ragd.Job{ID: info.ID, Type: info.Type, Status: statusOf(info.State), Retried: info.Retried}
	var p struct {
		Namespace string    `json:"kb_name"`
		CreatedAt time.Time `json:"created_at"`
		Traced
	}
	_ = json.Unmarshal(info.Payload, &p)
	job.CreatedAt, job.Namespace, job.TraceID = p.CreatedAt, p.Namespace, p.Trace.TraceID()
	if !info.CompletedAt.IsZero() {
		t := info.CompletedAt
		job.CompletedAt = &t
	}
	if info.State == asynq.TaskStateRetry || info.State == asynq.TaskStateArchived {
		job.Error = cleanError(info.LastErr)
	}
	rep := &report{}
	if len(info.Result) > 0 && json.Unmarshal(info.Result, rep) == nil {
		job.Progress = rep.Progress
		if rep.Result != nil {
			job.Result, _ = json.Marshal(rep.Result)
		}
	}
	if job.Status == ragd.JobFailed && job.CompletedAt == nil && !info.LastFailedAt.IsZero() {
		t := info.LastFailedAt
		job.CompletedAt = &t
	}
	return job, rep
}

func statusOf(s asynq.TaskState) ragd.JobStatus {
	switch s {
	case asynq.TaskStateActive:
		return ragd.JobActive
	case asynq.TaskStateRetry:
		return ragd.JobRetry
	case asynq.TaskStateCompleted:
		return ragd.JobCompleted
	case asynq.TaskStateArchived:
		return ragd.JobFailed
	default: // pending, scheduled, aggregating
		return ragd.JobQueued
	}
}

// cleanError drops Asynq's internal wording from a task's last error.
func cleanError(s string) string {
	s = strings.TrimSuffix(s, ": "+asynq.SkipRetry.Error())
	return strings.TrimSuffix(s, asynq.SkipRetry.Error())
}
