package library

import (
	"context"
	"time"

	"ragd"
	"ragd/internal/authn"
	"ragd/internal/jobs"
)

// IsFileJob reports whether id is one file's job of a directory job
// (jobs.IsFileJob), which is read through its directory's.
func IsFileJob(id string) bool { return jobs.IsFileJob(id) }

// Job returns a job's current state, or a NotFound error. A job of a
// namespace the caller may not use, or asked for by a principal who saw
// what the caller may not (ragd.Audience.SeesJobsOf: jobs.Queue.Job), is not found
// either, exactly as an unknown one: every read and cancel of a job, over
// REST and MCP, comes through here.
func (s *Service) Job(ctx context.Context, id string) (*ragd.Job, error) {
	if id == "" || len(id) > 200 {
		return nil, s.Queue.NotFound(id)
	}
	job, err := s.Queue.Job(ctx, id)
	if err != nil {
		return nil, err
	}
	if !authn.FromContext(ctx).Allows(job.Namespace) {
		return nil, s.Queue.NotFound(id) // not the caller's: do not confirm it exists
	}
	if job.Status.Terminal() && s.Registry != nil {
		// The job may have been run by another process: its change is
		// announced to this one, but a search the caller sends after
		// reading this answer must not depend on the announcement having
		// arrived first.
		s.Registry.ForgetEpoch(job.Namespace)
	}
	return job, nil
}

// pollInterval is how often a waiting request checks its job.
const pollInterval = 100 * time.Millisecond

// WaitJob polls a job until it ends or timeout passes (0: WaitTimeout) and
// returns its last state; the caller tells the two apart by
// Status.Terminal(). onChange, when set, sees every state whose status or
// progress differs from the one before (MCP turns them into progress
// notifications). REST and MCP wait through this one loop.
func (s *Service) WaitJob(ctx context.Context, id string, timeout time.Duration, onChange func(*ragd.Job)) (*ragd.Job, error) {
	if timeout <= 0 {
		timeout = s.WaitTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var last *ragd.Job
	for {
		job, err := s.Job(ctx, id)
		if err != nil {
			if last != nil && ctx.Err() != nil {
				return last, nil // the wait ran out during a read
			}
			return job, err
		}
		if onChange != nil && (last == nil || job.Status != last.Status || job.Progress != last.Progress) {
			onChange(job)
		}
		last = job
		if job.Status.Terminal() {
			return job, nil
		}
		select {
		case <-ctx.Done():
			return job, nil
		case <-time.After(pollInterval):
		}
	}
}

// JobPage is Job with one page of a directory job's files: limit files
// (1 to MaxListLimit) from offset, each nil for all of them and 0. Its
// progress and result still count every file; ChildrenNextOffset says
// where the next page starts. A poll of a large directory thus answers in
// a bounded size.
func (s *Service) JobPage(ctx context.Context, id string, limit, offset *int) (*ragd.Job, error) {
	job, err := s.Job(ctx, id)
	if err != nil || (limit == nil && offset == nil) {
		return job, err
	}
	l, o, err := pageOf(limit, offset)
	if err != nil {
		return nil, err
	}
	all := job.Children
	job.Children = all[min(o, len(all)):min(o+l, len(all))]
	if next := o + l; next < len(all) {
		job.ChildrenNextOffset = &next
	}
	return job, nil
}
