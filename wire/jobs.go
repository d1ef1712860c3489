package wire

import "ragd"

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

// CancelRequest names the job to cancel: POST /jobs/{id}/cancel (from its
// path) and core_cancel_job.
type CancelRequest struct {
	JobID string `json:"job_id" jsonschema:"the job to cancel, as an ingest call or core_list_jobs returned it"`
}

// CancelledJob answers a cancel.
type CancelledJob struct {
	JobID  string         `json:"job_id"`
	Status ragd.JobStatus `json:"status" enum:"cancelled" jsonschema:"cancelled"`
}
