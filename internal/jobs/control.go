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

// A job's control record is a Redis hash of ragd's own beside Asynq's task
// record: it says whether the job was cancelled or has begun to commit,
// and, once cancelled, holds what GET /jobs/{id} shows of it, since a
// cancelled job's task is removed from Asynq. Cancelling and committing
// both claim the record's status in one script, so a job is either
// cancelled before it switches the registry or committed and no longer
// cancellable, never both.
//
// Fields: status ("cancelled" or "committing"), job (the cancelled job as
// JSON), children (a cancelled directory's child refs as JSON), stopped
// ("1" once the worker that ran it has stopped and cleaned up).

// Control record statuses.
const (
	ctlCancelled  = "cancelled"
	ctlCommitting = "committing"
)

// ErrCancelled is what a job's run returns once it finds itself cancelled.
var ErrCancelled = errors.New("job cancelled")

// cancelTTL keeps a cancelled job readable as long as a completed one.
func (q *Queue) cancelTTL() time.Duration { return max(q.opts.Retention, time.Minute) }

// commitTTL outlives the task that committed: it must refuse cancels until
// the task's own state (completed) does.
func (q *Queue) commitTTL() time.Duration { return q.opts.Timeout + q.opts.Retention + time.Hour }

// markCancelScript records a job cancelled unless it already is, has begun
// to commit, or (when ARGV[4] is "1") its task has ended or is gone (a
// file job's outcome says it completed). It returns the record's status
// when there was one, else the task's state ("missing" when there is no
// task), so the caller knows how to stop it.
//
// KEYS: ctl, task, cancelled set, the directory's outcomes (the ctl again
// for a top-level job). ARGV: job JSON, ttl seconds, now (ms), check task
// state, job id, count it in the set ("1" for a top-level job), the file
// job's outcome field ("" for a top-level job).
var markCancelScript = redis.NewScript(`
local s = redis.call('HGET', KEYS[1], 'status')
if s then return s end
if ARGV[4] == '1' and ARGV[7] ~= '' and redis.call('HEXISTS', KEYS[4], ARGV[7]) == 1 then return 'completed' end
local state = redis.call('HGET', KEYS[2], 'state') or 'missing'
if ARGV[4] == '1' and (state == 'missing' or state == 'completed' or state == 'archived') then return state end
redis.call('HSET', KEYS[1], 'status', 'cancelled', 'job', ARGV[1])
redis.call('EXPIRE', KEYS[1], ARGV[2])
if ARGV[6] == '1' then redis.call('ZADD', KEYS[3], ARGV[3], ARGV[5]) end
return state`)

// checkpointScript is a running job's check: it returns the job's record
// status; a job without one whose parent was cancelled is recorded
// cancelled (ARGV[1] its JSON; a file job, so not counted in the cancelled
// set); with ARGV[4] "1" a job neither cancelled nor committing claims
// "committing".
//
// KEYS: ctl, parent's ctl (the ctl again without a parent).
// ARGV: job JSON, cancel ttl, commit ttl, claim.
var checkpointScript = redis.NewScript(`
local s = redis.call('HGET', KEYS[1], 'status')
if s then return s end
if KEYS[2] ~= KEYS[1] and redis.call('HGET', KEYS[2], 'status') == 'cancelled' then
  redis.call('HSET', KEYS[1], 'status', 'cancelled', 'job', ARGV[1])
  redis.call('EXPIRE', KEYS[1], ARGV[2])
  return 'cancelled'
end
if ARGV[4] == '1' then
  redis.call('HSET', KEYS[1], 'status', 'committing')
  redis.call('EXPIRE', KEYS[1], ARGV[3])
  return 'committing'
end
return ''`)

// setIfPresentScript sets a field of a control record that still exists.
var setIfPresentScript = redis.NewScript(`
if redis.call('EXISTS', KEYS[1]) == 1 then redis.call('HSET', KEYS[1], ARGV[1], ARGV[2]) end
return 0`)

// Ref names a running job for its cancellation checks.
type Ref struct {
	ID, ParentID, Type, Namespace string
	CreatedAt                     time.Time
}

// RefOf is the running task's Ref: its id from ctx, the rest from its
// payload. Outside an Asynq handler the id is empty and the checks pass.
func RefOf(ctx context.Context, t *asynq.Task) Ref {
	id, _ := asynq.GetTaskID(ctx)
	var p struct {
		Namespace string    `json:"kb_name"`
		ParentID  string    `json:"parent_id"`
		CreatedAt time.Time `json:"created_at"`
	}
	_ = json.Unmarshal(t.Payload(), &p)
	return Ref{ID: id, ParentID: p.ParentID, Type: t.Type(), Namespace: p.Namespace, CreatedAt: p.CreatedAt}
}

// DocumentRef is the Ref of the document job running pl.
func DocumentRef(ctx context.Context, pl DocumentPayload) Ref {
	id, _ := asynq.GetTaskID(ctx)
	return Ref{ID: id, ParentID: pl.ParentID, Type: TypeIngestDocument, Namespace: pl.Namespace, CreatedAt: pl.CreatedAt}
}

// cancelledJob is how a cancelled job reads once its task is gone.
func (r Ref) cancelledJob(now time.Time) ragd.Job {
	return ragd.Job{ID: r.ID, Type: r.Type, Namespace: r.Namespace, Status: ragd.JobCancelled, CreatedAt: r.CreatedAt, CompletedAt: &now}
}

// Cancelled reports whether the job was cancelled, itself or through its
// directory (then it is recorded cancelled now). A running job asks at
// its start and when it fails.
func (q *Queue) Cancelled(ctx context.Context, r Ref) (bool, error) {
	s, err := q.checkpoint(ctx, r, false)
	return s == ctlCancelled, err
}

// ClaimCommit is asked by a document job right before it makes its new
// version current: ErrCancelled if it was cancelled, else nil, after which
// a cancel is refused.
func (q *Queue) ClaimCommit(ctx context.Context, r Ref) error {
	s, err := q.checkpoint(ctx, r, true)
	if err != nil {
		return fmt.Errorf("job control: %w", err)
	}
	if s == ctlCancelled {
		return ErrCancelled
	}
	return nil
}

func (q *Queue) checkpoint(ctx context.Context, r Ref, claim bool) (string, error) {
	if r.ID == "" {
		return "", nil
	}
	now := time.Now()
	body, err := json.Marshal(r.cancelledJob(now.UTC()))
	if err != nil {
		return "", err
	}
	parent := q.keys.Control(r.ID)
	if r.ParentID != "" {
		parent = q.keys.Control(r.ParentID)
	}
	return checkpointScript.Run(ctx, q.rdb, []string{q.keys.Control(r.ID), parent}, body,
		seconds(q.cancelTTL()), seconds(q.commitTTL()), flag(claim)).Text()
}

// Stopped records that a cancelled job's run has stopped and removed what
// it wrote; the cancel waits for it.
func (q *Queue) Stopped(ctx context.Context, id string) error {
	return setIfPresentScript.Run(ctx, q.rdb, []string{q.keys.Control(id)}, "stopped", "1").Err()
}

// StoppedWithChildren is Stopped for a directory job cancelled while it
// fanned out: the children it enqueued are recorded for the cancel to stop.
func (q *Queue) StoppedWithChildren(ctx context.Context, id string, ids, paths []string) error {
	refs := make([]childRef, len(ids))
	for i := range ids {
		refs[i] = childRef{ID: ids[i], FilePath: paths[i]}
	}
	body, err := json.Marshal(refs)
	if err != nil {
		return err
	}
	if err := setIfPresentScript.Run(ctx, q.rdb, []string{q.keys.Control(id)}, "children", body).Err(); err != nil {
		return err
	}
	return q.Stopped(ctx, id)
}

// CancelledCount counts the top-level jobs cancelled within the retention
// (a directory once, not its files), as Stats does.
func (q *Queue) CancelledCount(ctx context.Context) (int, error) {
	since := time.Now().Add(-q.cancelTTL()).UnixMilli()
	key := q.keys.Cancelled()
	var n *redis.IntCmd
	_, err := q.rdb.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.ZRemRangeByScore(ctx, key, "-inf", fmt.Sprint(since))
		n = p.ZCard(ctx, key)
		return nil
	})
	if err != nil {
		return 0, err
	}
	return int(n.Val()), nil
}

// flag is a script's boolean argument.
func flag(b bool) string {
	if b {
		return "1"
	}
	return "0"
}

func seconds(d time.Duration) int64 { return int64(max(d/time.Second, 1)) }
