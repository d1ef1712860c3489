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
	var m indexMeta
	if q.opts.WaitReplicas <= 0 || json.Unmarshal(body, &m) != nil || m.ParentID != "" {
		return nil
	}
	conn, err := q.markerConn(ctx)
	if conn == nil || err != nil {
		return err
	}
	defer func() { _ = conn.Close() }()
	err = conn.Incr(ctx, q.keys.Replicated()).Err()
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
