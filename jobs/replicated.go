package jobs

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/redis/go-redis/v9"
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
func (q *Queue) replicated(ctx context.Context, jobID string, body []byte) error {
	pool, ok := q.rdb.(interface{ Conn() *redis.Conn })
	var m indexMeta
	if q.opts.WaitReplicas <= 0 || !ok || json.Unmarshal(body, &m) != nil || m.ParentID != "" {
		return nil
	}
	conn := pool.Conn()
	defer func() { _ = conn.Close() }()
	err := conn.Incr(ctx, q.keys.Replicated()).Err()
	var acked int64
	if err == nil {
		acked, err = conn.Wait(ctx, q.opts.WaitReplicas, q.opts.WaitTimeout).Result()
	}
	if err != nil {
		// The job may or may not survive a failover under way: not
		// acknowledged, so a retry is safe (tasks are idempotent).
		return fmt.Errorf("job %s not confirmed by a replica: %w", jobID, err)
	}
	if acked < int64(q.opts.WaitReplicas) && q.opts.Unreplicated != nil {
		q.opts.Unreplicated(jobID, acked)
	}
	return nil
}
