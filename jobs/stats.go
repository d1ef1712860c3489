package jobs

import (
	"context"
	"slices"
)

// Stats counts the queue's jobs by state.
type Stats struct {
	Pending int `json:"pending"` // queued, scheduled or waiting to retry
	Active  int `json:"active"`
	Failed  int `json:"failed"`
	// Cancelled counts the jobs cancelled within the job retention.
	Cancelled int `json:"cancelled"`
}

// Stats reads the queue's counters; a queue never used yet counts zero.
func (q *Queue) Stats() (Stats, error) {
	cancelled, err := q.CancelledCount(context.Background())
	if err != nil {
		return Stats{}, err
	}
	// GetQueueInfo's not-found error is internal to Asynq, so ask first.
	queues, err := q.inspector.Queues()
	if err != nil {
		return Stats{}, err
	}
	if !slices.Contains(queues, q.opts.Queue) {
		return Stats{Cancelled: cancelled}, nil
	}
	info, err := q.inspector.GetQueueInfo(q.opts.Queue)
	if err != nil {
		return Stats{}, err
	}
	return Stats{Pending: info.Pending + info.Scheduled + info.Retry, Active: info.Active, Failed: info.Archived, Cancelled: cancelled}, nil
}
