package library

import (
	"context"
	"slices"

	"ragd"
	"ragd/auth"
	"ragd/jobs"
)

// JobListRequest asks for one page of jobs: GET /jobs (from its query
// parameters) and core_list_jobs.
type JobListRequest struct {
	KBName string         `json:"kb_name,omitempty" jsonschema:"only this namespace's jobs (default: the jobs of every namespace you may use)"`
	Status ragd.JobStatus `json:"status,omitempty" jsonschema:"only jobs in this status: queued, active, retry, completed, failed or cancelled"`
	// Limit and Offset are nil when not given, as in ListRequest.
	Limit  *int `json:"limit,omitempty" jsonschema:"jobs per page, 1-1000 (default 100)"`
	Offset *int `json:"offset,omitempty" jsonschema:"jobs to skip (default 0); pass the previous page's next_offset"`
}

// JobList answers GET /jobs and core_list_jobs: one page of the jobs
// callers asked for, newest first. A directory job's per-file jobs are not
// listed: its own entry counts them, and GET /jobs/{id} lists them.
type JobList struct {
	Jobs  []ragd.Job `json:"jobs" jsonschema:"newest first, without a directory's per-file jobs (its job's status lists them)"`
	Count int        `json:"count" jsonschema:"jobs on this page"`
	Total int        `json:"total" jsonschema:"jobs that match"`
	// NextOffset is nil on the last page, so a client pages until it is absent.
	NextOffset *int `json:"next_offset,omitempty" jsonschema:"offset of the next page; absent on the last page"`
}

// ListJobs returns a page of the jobs of a namespace, or of every
// namespace the caller may use. Jobs finished longer ago than the job
// retention are gone.
func (s *Service) ListJobs(ctx context.Context, req JobListRequest) (JobList, error) {
	limit, offset, err := pageOf(req.Limit, req.Offset)
	if err != nil {
		return JobList{}, err
	}
	if req.Status != "" && !slices.Contains(ragd.JobStatuses, req.Status) {
		return JobList{}, invalidQuery("status", "status must be one of %v, not %q", ragd.JobStatuses, req.Status)
	}
	namespaces, err := jobNamespaces(ctx, req.KBName)
	if err != nil {
		return JobList{}, err
	}
	page, total, err := s.Queue.List(ctx, jobs.ListQuery{Namespaces: namespaces, Status: req.Status, Offset: offset, Limit: limit})
	if err != nil {
		return JobList{}, ragd.Unavailable("redis", err)
	}
	if page == nil {
		page = []ragd.Job{} // [], not null
	}
	list := JobList{Jobs: page, Count: len(page), Total: total}
	// A job gone while the page was read is missing from it and has moved
	// the rest up by one, so the next page starts right after this one.
	if next := min(offset, total) + len(page); next < total {
		list.NextOffset = &next
	}
	return list, nil
}

// jobNamespaces is the namespaces a job listing covers: kb alone, else the
// caller's (nil: all).
func jobNamespaces(ctx context.Context, kb string) ([]string, error) {
	if kb != "" {
		if !ragd.ValidNamespace(kb) {
			return nil, invalidQuery("kb_name", "kb_name %q is not a valid namespace: %s", kb, ragd.NamespaceRule)
		}
		return []string{kb}, auth.CheckNamespace(ctx, kb)
	}
	if p := auth.FromContext(ctx); p != nil && len(p.Namespaces) > 0 {
		return p.Namespaces, nil
	}
	return nil, nil
}
