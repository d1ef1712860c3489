package library

import (
	"context"
	"fmt"

	"ragd/wire"

	"ragd"
)

// CancelRequest is wire.CancelRequest, the contract REST, MCP and the client share.
type CancelRequest = wire.CancelRequest

// CancelledJob is wire.CancelledJob, the contract REST, MCP and the client share.
type CancelledJob = wire.CancelledJob

// CancelJob cancels a job that has not ended: see jobs.Queue.Cancel. A job
// of a namespace the caller may not use is not found, as in Job.
func (s *Service) CancelJob(ctx context.Context, req CancelRequest) (CancelledJob, error) {
	job, err := s.Job(ctx, req.JobID)
	if err != nil {
		return CancelledJob{}, err
	}
	if err := s.Queue.Cancel(ctx, job); err != nil {
		if ragd.KindOf(err) == ragd.KindInternal {
			err = ragd.Unavailable("redis", fmt.Errorf("cancel job %s: %w", job.ID, err))
		}
		return CancelledJob{}, err
	}
	s.Log.InfoContext(ctx, "job cancelled", "job_id", job.ID, "type", job.Type, "kb_name", job.Namespace)
	return CancelledJob{JobID: job.ID, Status: ragd.JobCancelled}, nil
}
