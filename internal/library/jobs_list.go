package library

import (
	"context"
	"slices"

	"ragd/wire"

	"ragd"
	"ragd/internal/authn"
	"ragd/internal/jobs"
)

// JobListRequest is wire.JobListRequest, the contract REST, MCP and the client share.
type JobListRequest = wire.JobListRequest

// JobList is wire.JobList, the contract REST, MCP and the client share.
type JobList = wire.JobList

// ListJobs returns a page of the jobs of a namespace, or of every
// namespace the caller may use, that the caller may see (Job). Jobs finished longer ago than the job
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
	page, total, err := s.Queue.List(ctx, jobs.ListQuery{Namespaces: namespaces, Status: req.Status,
		Offset: offset, Limit: limit})
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
		return []string{kb}, authn.CheckNamespace(ctx, kb)
	}
	if p := authn.FromContext(ctx); p != nil && len(p.Namespaces) > 0 {
		return p.Namespaces, nil
	}
	return nil, nil
}
