package jobs

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/hibiken/asynq"
	"github.com/redis/go-redis/v9"

	"ragd"
)

// stopWait bounds how long a cancel waits for the jobs it stopped to end
// their runs and remove what they wrote. A job that takes longer still
// stops: its run checks for the cancel before it commits anything.
const stopWait = 15 * time.Second

// stopPoll is how often a cancel checks whether its jobs have stopped.
const stopPoll = 50 * time.Millisecond

// deleters bounds the concurrent task deletions of a directory's cancel.
const deleters = 8

// stopper stops the tasks of cancelled jobs and waits for their runs.
type stopper struct {
	mu      sync.Mutex
	running []string // stopped through CancelProcessing, or committing
}

// stopAll stops each job that mark cancelled (its returned state a task
// state; retried its attempts so far) and waits for those committing.
func (s *stopper) stopAll(q *Queue, jobs []ragd.Job, states []string) {
	sem := make(chan struct{}, deleters)
	var wg sync.WaitGroup
	for i, state := range states {
		switch state {
		case ctlCommitting:
			s.running = append(s.running, jobs[i].ID)
		case ctlCancelled, "completed", "archived", "missing":
		default:
			wg.Add(1)
			sem <- struct{}{}
			go func() {
				defer func() { <-sem; wg.Done() }()
				s.stop(q, jobs[i].ID, state, jobs[i].Retried)
			}()
		}
	}
	wg.Wait()
}

// stop removes a waiting task that never ran from the queue, or cancels a
// running one's run. A waiting task that ran before (and failed) may have
// left chunks behind: it is run now instead, and its run, finding itself
// cancelled at its start, removes them.
func (s *stopper) stop(q *Queue, id, state string, retried int) {
	switch state {
	case "pending", "scheduled", "retry", "aggregating":
		if retried > 0 {
			if state != "pending" {
				_ = q.inspector.RunTask(q.opts.Queue, id) // best effort: it runs at its retry time otherwise
			}
			return
		}
		err := q.inspector.DeleteTask(q.opts.Queue, id)
		if _, _, child := parentOf(id); err == nil && !child {
			q.ReleaseText(context.Background(), id) // it will not run
		}
		if err == nil || errors.Is(err, asynq.ErrTaskNotFound) {
			return
		}
		// It has just started: cancel its run.
	case "active":
	default:
		return
	}
	_ = q.inspector.CancelProcessing(id) // best effort: the run checks for the cancel before it commits
	s.mu.Lock()
	s.running = append(s.running, id)
	s.mu.Unlock()
}

// wait waits, up to stopWait, until every run stopped has ended (a
// cancelled one having removed what it wrote), then removes the tasks
// Asynq put back for a retry.
func (s *stopper) wait(ctx context.Context, q *Queue) {
	ctx, cancel := context.WithTimeout(ctx, stopWait)
	defer cancel()
	pending := s.running
	var cancelled []string
	for len(pending) > 0 {
		left, done, err := q.stillRunning(ctx, pending)
		if err == nil {
			cancelled = append(cancelled, done...)
			pending = left
		}
		if len(pending) == 0 {
			break
		}
		select {
		case <-ctx.Done():
			pending = nil
		case <-time.After(stopPoll):
		}
	}
	for _, id := range cancelled {
		_ = q.inspector.DeleteTask(q.opts.Queue, id) // not found: a retry ran and revoked it
	}
}

// stillRunning splits ids into those still running and the cancelled ones
// that have stopped but whose task Asynq kept.
func (q *Queue) stillRunning(ctx context.Context, ids []string) (left, stopped []string, err error) {
	states, ctls, acks := make([]*redis.StringCmd, len(ids)), make([]*redis.StringCmd, len(ids)), make([]*redis.StringCmd, len(ids))
	_, err = q.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		for i, id := range ids {
			states[i] = p.HGet(ctx, q.keys.Task(id), "state")
			ctls[i] = p.HGet(ctx, q.keys.Control(id), "status")
			acks[i] = p.HGet(ctx, q.keys.Control(id), "stopped")
		}
		return nil
	})
	if err != nil && !errors.Is(err, redis.Nil) {
		return nil, nil, err
	}
	for i, id := range ids {
		cancelled, state := ctls[i].Val() == ctlCancelled, states[i].Val()
		// Asynq moves a task whose context was cancelled on to retry (or
		// to archived; then maybe on to pending) without waiting for its
		// handler, which may still be removing what it wrote until it
		// acknowledges.
		cleaning := cancelled && acks[i].Val() != "1" && (state == "retry" || state == "archived" || state == "pending")
		switch {
		case state == "active" || cleaning:
			left = append(left, id)
		case cancelled && state != "" && state != "completed":
			stopped = append(stopped, id) // put back for a retry, or archived
		}
	}
	return left, stopped, nil
}
