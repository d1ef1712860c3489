package rag

import (
	"context"
	"time"

	"ragd"
	"ragd/auth"
)

// Job returns a job's current state, or a NotFound error.
func (s *Service) Job(ctx context.Context, id string) (*ragd.Job, error) {
	if id == "" || len(id) > 200 {
		return nil, ragd.NotFound("job %q not found", id)
	}
	job, err := s.Queue.Job(ctx, id)
	if err != nil {
		return nil, err
	}
	if !auth.FromContext(ctx).Allows(job.Namespace) {
		return nil, ragd.NotFound("job %q not found", id) // not the caller's: do not confirm it exists
	}
	return job, nil
}

// WaitJob polls a job until it ends or WaitTimeout passes, and returns its
// last state; the caller tells the two apart by Status.Terminal().
func (s *Service) WaitJob(ctx context.Context, id string) (*ragd.Job, error) {
	ctx, cancel := context.WithTimeout(ctx, s.WaitTimeout)
	defer cancel()
	interval := s.PollInterval
	if interval <= 0 {
		interval = 100 * time.Millisecond
	}
	for {
		job, err := s.Job(ctx, id)
		if err != nil || job.Status.Terminal() {
			return job, err
		}
		select {
		case <-ctx.Done():
			return job, nil
		case <-time.After(interval):
		}
	}
}
