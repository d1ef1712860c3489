package jobs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/hibiken/asynq"
	"github.com/redis/go-redis/v9"

	"ragd"
)

// Asynq keeps no index of its tasks but by state, and reading a task's
// namespace and age means decoding its payload. ragd therefore indexes the
// jobs a caller asked for (not a directory's per-file jobs) as it enqueues
// them: per namespace, a sorted set of job ids by creation time, plus the
// set of namespaces with jobs and the set of directory jobs. Asynq stays
// the truth about each job; an entry whose job is gone is dropped when a
// listing meets it.

// indexMeta is what the index needs of any payload.
type indexMeta struct {
	Namespace string    `json:"kb_name"`
	ParentID  string    `json:"parent_id"`
	CreatedAt time.Time `json:"created_at"`
	// Viewer is the asker's groups (DocumentPayload.Viewer): nil for an
	// operator, and for the payloads that carry none (imports, switches),
	// which only operators ask for.
	Viewer *[]string `json:"viewer"`
}

// index records a top-level job before it is enqueued, so no listing can
// miss a job that exists; one whose enqueue then fails is dropped later.
func (q *Queue) index(ctx context.Context, typ, id string, body []byte) error {
	var m indexMeta
	if err := json.Unmarshal(body, &m); err != nil || m.ParentID != "" || m.Namespace == "" {
		return err
	}
	_, err := q.rdb.TxPipelined(ctx, func(p redis.Pipeliner) error {
		q.indexPipe(ctx, p, typ, id, m)
		countNewScript.Eval(ctx, p, q.countKeys(), id, m.Namespace+countSep+ragd.ViewerAudience(m.Viewer).Key())
		return nil
	})
	if err != nil {
		return fmt.Errorf("index job: %w", err)
	}
	if q.indexed.Add(1)%pruneEvery == 0 {
		q.pruneIndex(ctx, m.Namespace)
	}
	return nil
}

// A listing drops the entries of jobs past their retention as it meets
// them; a namespace nobody lists would keep them all. Every pruneEvery-th
// job indexed therefore looks at up to pruneBatch of its namespace's
// entries older than the retention and drops those whose job is gone, so
// the index stays about the size of the jobs still kept.
const (
	pruneEvery = 32
	pruneBatch = 64
)

// pruneIndex drops up to pruneBatch of the namespace's expired entries.
// It is best effort: what it leaves, the next prune or listing drops.
func (q *Queue) pruneIndex(ctx context.Context, ns string) {
	cutoff := time.Now().Add(-q.opts.Retention).UnixMilli()
	old, err := q.rdb.ZRangeByScoreWithScores(ctx, q.keys.Index(ns), &redis.ZRangeBy{
		Min: "-inf", Max: fmt.Sprint(cutoff), Count: pruneBatch}).Result()
	if err != nil || len(old) == 0 {
		return
	}
	entries := make([]entry, len(old))
	for i, z := range old {
		entries[i] = entry{id: z.Member.(string), ns: ns, created: z.Score}
	}
	_, _ = q.live(ctx, entries, false) // unindexes the gone
}

func (q *Queue) indexPipe(ctx context.Context, p redis.Pipeliner, typ, id string, m indexMeta) {
	p.ZAdd(ctx, q.keys.Index(m.Namespace), redis.Z{Score: float64(m.CreatedAt.UnixMicro()) / 1000, Member: id})
	p.SAdd(ctx, q.keys.Namespaces(), m.Namespace)
	p.HSet(ctx, q.keys.Viewers(), id, ragd.ViewerAudience(m.Viewer).Key())
	if typ == TypeIngestDirectory {
		p.SAdd(ctx, q.keys.Directories(), id)
	}
}

// backfillPage is how many tasks one inspector call lists when backfilling.
const backfillPage = 500

// backfill indexes, once per queue, the tasks enqueued before ragd indexed
// its jobs: the inspector lists them by state.
func (q *Queue) backfill(ctx context.Context) error {
	first, err := q.rdb.SetNX(ctx, q.keys.Backfilled(), time.Now().UTC().Format(time.RFC3339), 0).Result()
	if err != nil || !first {
		return err
	}
	if err := q.backfillStates(ctx); err != nil {
		q.rdb.Del(context.WithoutCancel(ctx), q.keys.Backfilled()) // try again next time
		return err
	}
	return q.rdb.Del(ctx, q.keys.CountedAt()).Err() // count the jobs just indexed
}

func (q *Queue) backfillStates(ctx context.Context) error {
	name := q.opts.Queue
	lists := []func(string, ...asynq.ListOption) ([]*asynq.TaskInfo, error){
		q.inspector.ListPendingTasks, q.inspector.ListScheduledTasks, q.inspector.ListRetryTasks,
		q.inspector.ListActiveTasks, q.inspector.ListCompletedTasks, q.inspector.ListArchivedTasks,
	}
	for _, list := range lists {
		for page := 1; ; page++ {
			tasks, err := list(name, asynq.PageSize(backfillPage), asynq.Page(page))
			if errors.Is(err, asynq.ErrQueueNotFound) {
				return nil
			}
			if err != nil {
				return err
			}
			_, err = q.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
				for _, t := range tasks {
					var m indexMeta
					if json.Unmarshal(t.Payload, &m) == nil && m.ParentID == "" && m.Namespace != "" {
						q.indexPipe(ctx, p, t.Type, t.ID, m)
					}
				}
				return nil
			})
			if err != nil {
				return err
			}
			if len(tasks) < backfillPage {
				break
			}
		}
	}
	return nil
}
