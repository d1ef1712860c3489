package jobs

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"time"

	"github.com/hibiken/asynq"

	"ragd"
)

// Job reads a job's state. A directory job stays active until every file job
// it fanned out has finished; its progress counts those files.
func (q *Queue) Job(ctx context.Context, id string) (*ragd.Job, error) {
	info, err := q.inspector.GetTaskInfo(q.opts.Queue, id)
	if errors.Is(err, asynq.ErrTaskNotFound) || errors.Is(err, asynq.ErrQueueNotFound) {
		return nil, ragd.NotFound("job %s not found (unknown id, or finished more than %s ago)", id, q.opts.Retention)
	}
	if err != nil {
		return nil, ragd.Unavailable("redis", err)
	}
	job, rep := fromTaskInfo(info)
	if info.Type == TypeIngestDirectory {
		q.aggregateChildren(job, rep)
	}
	return job, nil
}

func fromTaskInfo(info *asynq.TaskInfo) (*ragd.Job, *report) {
	job := &ragd.Job{ID: info.ID, Type: info.Type, Status: statusOf(info.State), Retried: info.Retried}
	var p struct {
		Namespace string    `json:"kb_name"`
		CreatedAt time.Time `json:"created_at"`
	}
	_ = json.Unmarshal(info.Payload, &p)
	job.CreatedAt, job.Namespace = p.CreatedAt, p.Namespace
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

func (q *Queue) aggregateChildren(job *ragd.Job, rep *report) {
	if len(rep.Children) == 0 {
		return
	}
	result := ragd.DirectoryResult{FilesTotal: len(rep.Children)}
	if job.Result != nil {
		_ = json.Unmarshal(job.Result, &result)
	}
	result.FilesIndexed, result.FilesFailed, result.ChunksIndexed = 0, 0, 0
	done := 0
	var last time.Time
	for _, c := range rep.Children {
		child := ragd.ChildJob{ID: c.ID, FilePath: c.FilePath, Status: ragd.JobActive}
		info, err := q.inspector.GetTaskInfo(q.opts.Queue, c.ID)
		switch {
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
