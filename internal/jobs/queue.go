package jobs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/google/uuid"
	"github.com/hibiken/asynq"
	asynqmetrics "github.com/hibiken/asynq/x/metrics"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/redis/go-redis/v9"

	"ragd/internal/platform/keyspace"
	"ragd/internal/platform/telemetry"
)

// Options configure how tasks are enqueued.
type Options struct {
	Queue string
	// Keys names ragd's keys (from redis.key_prefix); the job keys are
	// its Jobs(Queue).
	Keys       keyspace.Keys
	MaxRetries int
	Timeout    time.Duration
	// Retention keeps finished jobs readable for this long.
	Retention time.Duration
	// WaitReplicas replicas must hold a job before it is acknowledged, at
	// most WaitTimeout (see replicated.go): a job fewer replicas held in
	// time is refused with a 503, unless RiskJobLoss acknowledges it
	// anyway (a failover may then lose it); Unreplicated hears of each
	// job so acknowledged.
	WaitReplicas int
	WaitTimeout  time.Duration
	RiskJobLoss  bool
	Unreplicated func(jobID string, acked int64)
}

// Queue enqueues ragd's tasks and reads their state back.
type Queue struct {
	client    *asynq.Client
	inspector *asynq.Inspector
	// rdb reads many task records in one round trip, which the inspector
	// cannot (see children.go).
	rdb  redis.UniversalClient
	keys keyspace.JobKeys
	opts Options
	// indexed counts the jobs this process indexed (pruneIndex).
	indexed atomic.Int64
}

// NewQueue uses rdb for both enqueueing and inspection.
func NewQueue(rdb redis.UniversalClient, opts Options) *Queue {
	return &Queue{client: asynq.NewClientFromRedisClient(rdb), inspector: asynq.NewInspectorFromRedisClient(rdb), rdb: rdb,
		keys: opts.Keys.Jobs(opts.Queue), opts: opts}
}

// Inspector reads Asynq's state.
func (q *Queue) Inspector() *asynq.Inspector { return q.inspector }

// Collector is Asynq's Prometheus collector of the queues' sizes and
// latency, for /metrics.
func (q *Queue) Collector() prometheus.Collector {
	return asynqmetrics.NewQueueMetricsCollector(q.inspector)
}

// Name is the Asynq queue the tasks go to.
func (q *Queue) Name() string { return q.opts.Queue }

// NewJobID returns a fresh job id.
func NewJobID() string { return uuid.NewString() }

// EnqueueDocument enqueues a document task under jobID.
func (q *Queue) EnqueueDocument(ctx context.Context, jobID string, p DocumentPayload) error {
	return traced(ctx, TypeIngestDocument, jobID, p.Namespace, p.ParentID != "", func(ctx context.Context, c *telemetry.Carrier) error {
		p.Trace = c
		if err := q.holdText(ctx, jobID, &p); err != nil {
			return err
		}
		err := q.enqueue(ctx, TypeIngestDocument, jobID, p, fileRetention(p)...)
		if err != nil && p.TextHeld && !errors.Is(err, errLeftQueued) {
			q.ReleaseText(ctx, jobID) // the job will not run
		}
		return err
	})
}

// EnqueueDirectory enqueues a directory task under jobID.
func (q *Queue) EnqueueDirectory(ctx context.Context, jobID string, p DirectoryPayload) error {
	return traced(ctx, TypeIngestDirectory, jobID, p.Namespace, false, func(ctx context.Context, c *telemetry.Carrier) error {
		p.Trace = c
		return q.enqueue(ctx, TypeIngestDirectory, jobID, p)
	})
}

// enqueue is idempotent per job id: a parent retried after fanning out some
// children re-enqueues the same ids, and Asynq refuses the duplicates. A job
// a caller asked for is indexed for listing first (index.go).
// extra options override the queue's own.
func (q *Queue) enqueue(ctx context.Context, typ, jobID string, payload any, extra ...asynq.Option) error {
	body, err := json.Marshal(payload)
	if err != nil {
		return err
	}
	if err := q.index(ctx, typ, jobID, body); err != nil {
		return err
	}
	task := asynq.NewTask(typ, body)
	opts := append([]asynq.Option{asynq.TaskID(jobID), asynq.Queue(q.opts.Queue),
		asynq.MaxRetry(q.opts.MaxRetries), asynq.Timeout(q.opts.Timeout), asynq.Retention(q.opts.Retention)}, extra...)
	_, err = q.client.EnqueueContext(ctx, task, opts...)
	if errors.Is(err, asynq.ErrTaskIDConflict) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("enqueue %s: %w", typ, err)
	}
	return q.replicated(ctx, jobID, body)
}

// Close releases the queue's connections (not the shared Redis client).
func (q *Queue) Close() error {
	return errors.Join(q.client.Close(), q.inspector.Close())
}
