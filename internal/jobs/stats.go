package jobs

import (
	"context"

	"ragd"
)

// Stats counts jobs by status.
type Stats struct {
	Pending int `json:"pending"` // queued, or waiting to retry
	Active  int `json:"active"`
	Failed  int `json:"failed"`
	// Cancelled counts the jobs cancelled within the job retention.
	Cancelled int `json:"cancelled"`
}

// Stats counts the jobs of namespaces (nil: every namespace) that aud may
// see (ragd.Audience.SeesJobsOf) by the status
// the job listing gives them, so a count and `GET /jobs?status=` agree: a
// job is a top-level job (a directory counts once, by its files; its
// per-file jobs are not jobs of their own), and a cancelled job is
// cancelled, never failed, although Asynq archives its task as it does a
// failed one. Asynq's own counters (its web UI, /metrics) count tasks,
// per-file ones included, and cancelled ones as archived.
func (q *Queue) Stats(ctx context.Context, namespaces []string, aud ragd.Audience) (Stats, error) {
	if err := q.backfill(ctx); err != nil {
		return Stats{}, err
	}
	entries, err := q.visibleEntries(ctx, namespaces, aud)
	if err != nil {
		return Stats{}, err
	}
	if entries, err = q.live(ctx, entries, true); err != nil {
		return Stats{}, err
	}
	var st Stats
	for _, e := range entries {
		switch e.status {
		case ragd.JobQueued, ragd.JobRetry:
			st.Pending++
		case ragd.JobActive:
			st.Active++
		case ragd.JobFailed:
			st.Failed++
		case ragd.JobCancelled:
			st.Cancelled++
		}
	}
	return st, nil
}
