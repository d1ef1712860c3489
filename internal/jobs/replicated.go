package jobs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/hibiken/asynq"
	"github.com/redis/go-redis/v9"

	"ragd"
)

// Redis replicates asynchronously: a job the primary accepted but had not
// yet sent to a replica is lost if the primary dies and the replica is
// promoted. replicated closes that window for the jobs ragd acknowledges.
//
// WAIT only covers the writes of the connection it runs on, and Asynq's
// enqueue ran on some pooled connection; so it writes a marker and WAITs
// on one connection of its own. The replication stream keeps the
// primary's order, so a replica that holds the marker holds the enqueue
// before it.
//
// Only a job a caller asked for waits: a child a directory task enqueues is
// written before that task's completion, so a failover that loses the
// child loses the completion too, and the directory task runs again and
// re-enqueues it.
//
// A job no replica confirmed in time is refused (unconfirmed), unless
// RiskJobLoss acknowledges it anyway.
func (q *Queue) replicated(ctx context.Context, jobID string, body []byte) error {
	var m indexMeta
	if q.opts.WaitReplicas <= 0 || json.Unmarshal(body, &m) != nil || m.ParentID != "" {
		return nil
	}
	acked, done, err := q.waitReplicas(ctx)
	if err != nil {
		// The job may or may not survive a failover under way.
		return q.unconfirmed(jobID, fmt.Errorf("job %s: WAIT: %w", jobID, err))
	}
	if done || acked >= int64(q.opts.WaitReplicas) {
		return nil
	}
	if q.opts.RiskJobLoss {
		if q.opts.Unreplicated != nil {
			q.opts.Unreplicated(jobID, acked)
		}
		return nil
	}
	return q.unconfirmed(jobID, fmt.Errorf("job %s: %d of %d replicas within %s", jobID, acked, q.opts.WaitReplicas, q.opts.WaitTimeout))
}

// waitReplicas writes the marker on a connection of its own and WAITs
// for the replicas to hold it, returning how many did; done is true when
// the client offers no such connection (nothing to wait for).
func (q *Queue) waitReplicas(ctx context.Context) (acked int64, done bool, err error) {
	conn, err := q.markerConn(ctx)
	if conn == nil || err != nil {
		return 0, conn == nil && err == nil, err
	}
	defer func() { _ = conn.Close() }()
	if err := conn.Incr(ctx, q.keys.Replicated()).Err(); err != nil {
		return 0, false, err
	}
	acked, err = conn.Wait(ctx, q.opts.WaitReplicas, q.opts.WaitTimeout).Result()
	return acked, false, err
}

// Confirm returns once the replicas WaitReplicas asks for hold every
// write the primary made before the call, or the 503 that says retrying
// is safe. An answer that rests on what Redis holds without a new job — a
// dedup hit: the document a refused request's job indexed — is
// acknowledged only then, as a job is: a failover would lose a document
// the primary alone held, and a client told "already indexed" would not
// send it again. RiskJobLoss and WaitReplicas 0 confirm at once.
func (q *Queue) Confirm(ctx context.Context) error {
	if q.opts.WaitReplicas <= 0 || q.opts.RiskJobLoss {
		return nil
	}
	acked, done, err := q.waitReplicas(ctx)
	if err == nil && (done || acked >= int64(q.opts.WaitReplicas)) {
		return nil
	}
	if err == nil {
		err = fmt.Errorf("%d of %d replicas within %s", acked, q.opts.WaitReplicas, q.opts.WaitTimeout)
	}
	return &ragd.Error{Kind: ragd.KindUnavailable, RetryAfterSeconds: UnconfirmedRetryAfter, Err: err,
		Message: "what Redis holds was not confirmed on a Redis replica in time: retrying the same request is safe"}
}

// UnconfirmedRetryAfter is the Retry-After, in seconds, of a job refused
// because no replica confirmed it in time.
const UnconfirmedRetryAfter = 2

// errLeftQueued marks an unconfirmed job whose task could not be
// withdrawn (a worker had begun it): it may still run, so what it needs
// (its held text) must stay.
var errLeftQueued = errors.New("the task was left queued")

// unconfirmed withdraws a job no replica confirmed and returns the 503
// that refuses it. The caller was not told of the job, so nothing waits
// for it; its listing entry is dropped when a listing meets it. A task a
// worker has begun is left to end as it will: it indexes the same
// document a retry does (a document's id is its namespace and source, and
// its jobs take its lock in turn), so the retry neither duplicates it nor
// is refused (once it has completed, the retry is a dedup hit).
func (q *Queue) unconfirmed(jobID string, cause error) error {
	if err := q.withdraw(jobID); err != nil {
		cause = errors.Join(cause, fmt.Errorf("%w: %v", errLeftQueued, err))
	}
	return &ragd.Error{Kind: ragd.KindUnavailable, RetryAfterSeconds: UnconfirmedRetryAfter, Err: cause,
		Message: "the job was not confirmed on a Redis replica in time and was not accepted: retrying the same request is safe"}
}

// withdraw deletes a job's task that has not run yet (nil too when there
// is no task). An error says it ran, is running, or could not be read or
// deleted: it is left. One that ran may have left chunks that only its
// own next run removes, so it is not deleted either.
func (q *Queue) withdraw(jobID string) error {
	info, err := q.inspector.GetTaskInfo(q.opts.Queue, jobID)
	switch {
	case errors.Is(err, asynq.ErrTaskNotFound):
		return nil
	case err != nil:
		return err
	case info.State != asynq.TaskStatePending || info.Retried > 0:
		return fmt.Errorf("task %s after %d retries", info.State, info.Retried)
	}
	if err := q.inspector.DeleteTask(q.opts.Queue, jobID); err != nil && !errors.Is(err, asynq.ErrTaskNotFound) {
		return err
	}
	return nil
}

// markerConn is a connection of its own to the primary holding the
// queue's keys: the one primary of a single Redis or a sentinel's, or, on
// a cluster, the primary of the queue's hash slot (the marker shares it).
// nil when the client offers none.
func (q *Queue) markerConn(ctx context.Context) (*redis.Conn, error) {
	switch c := q.rdb.(type) {
	case *redis.ClusterClient:
		node, err := c.MasterForKey(ctx, q.keys.Replicated())
		if err != nil {
			return nil, err
		}
		return node.Conn(), nil
	case interface{ Conn() *redis.Conn }:
		return c.Conn(), nil
	}
	return nil, nil
}
