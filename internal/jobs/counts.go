package jobs

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/hibiken/asynq"
	"github.com/redis/go-redis/v9"

	"ragd"
)

// Stats reads counters rather than walking every retained job. Each
// top-level job is counted in one bucket of its namespace and asker's
// audience (JobKeys.Counts; JobKeys.Counted says which), and ragd moves it
// at each status change it makes or hears of: indexed (pending), a worker
// starting it (active), Asynq's error handler on a failure (pending to
// retry, or failed), its handler returning (completed; a directory once
// its files have all ended, JobKeys.Ended, and failed if one failed for
// good, as listedStatus takes it), a cancel (cancelled, which no
// later move undoes). Asynq also moves tasks on its own (a crashed
// worker's lease recovered, the archive trimmed, retention expiry, a task
// deleted from its web UI), and a move races Asynq's own write: the
// counters are trusted only while JobKeys.CountedAt lives (countFresh),
// and one process at a time (JobKeys.Recount) rewrites them from the walk
// when it has expired or a counter reads negative. Queue counts are thus
// current with ragd's own changes and at most countFresh behind the rest.

// countFresh is how long the counters are trusted after a recount.
const countFresh = 30 * time.Second

// Counter buckets (a Counts field's last part).
const (
	bucketPending   = "pending"
	bucketActive    = "active"
	bucketFailed    = "failed"
	bucketCancelled = "cancelled"
	bucketCompleted = "completed"
)

// countSep separates a Counts field's parts.
const countSep = "\x1f"

// moveLua moves job ARGV[1] to bucket ARGV[2] unless it is not counted,
// already there, or cancelled. KEYS[1] Counted, KEYS[2] Counts.
const moveLua = `
local function move(id, bucket)
  local old = redis.call('HGET', KEYS[1], id)
  if not old then return 0 end
  local base, was = string.match(old, '^(.*)\31([^\31]*)$')
  if was == bucket or was == 'cancelled' then return 0 end
  local new = base .. '\31' .. bucket
  redis.call('HINCRBY', KEYS[2], old, -1)
  redis.call('HINCRBY', KEYS[2], new, 1)
  redis.call('HSET', KEYS[1], id, new)
  return 1
end
`

// moveScript: ARGV job id, bucket.
var moveScript = redis.NewScript(moveLua + `return move(ARGV[1], ARGV[2])`)

// countNewScript counts a newly indexed job pending. ARGV: id, field base
// (<ns>\x1f<audience key>).
var countNewScript = redis.NewScript(`
local field = ARGV[2] .. '\31pending'
if redis.call('HSETNX', KEYS[1], ARGV[1], field) == 1 then redis.call('HINCRBY', KEYS[2], field, 1) end
return 0`)

// endedScript records, for directory ARGV[1], that file ARGV[3] ended
// (ARGV[2] "file", or "failed" when it failed for good) or that the
// directory's task fanned out (ARGV[2] "fanned": the number of files is
// its report's children, KEYS[4] its task), and moves it once every file
// it fanned out has ended: to failed if one failed for good, as the
// listing takes it (listedStatus), else to completed. KEYS[3] Ended(dir);
// ARGV[4] its TTL (ms). Its fields: "." the number of files, "!" how many
// failed, one per file ended.
var endedScript = redis.NewScript(moveLua + `
if ARGV[2] == 'fanned' then
  local n = 0
  local raw = redis.call('HGET', KEYS[4], 'result')
  if raw then
    local ok, rep = pcall(cjson.decode, raw)
    if ok and type(rep) == 'table' and type(rep.children) == 'table' then n = #rep.children end
  end
  redis.call('HSET', KEYS[3], '.', n)
elseif redis.call('HSETNX', KEYS[3], ARGV[3], 1) == 0 then
  return 0
elseif ARGV[2] == 'failed' then
  redis.call('HINCRBY', KEYS[3], '!', 1)
end
redis.call('PEXPIRE', KEYS[3], ARGV[4])
local total = redis.call('HGET', KEYS[3], '.')
local failed = tonumber(redis.call('HGET', KEYS[3], '!') or '0')
local meta = 1
if failed > 0 then meta = 2 end
if total and redis.call('HLEN', KEYS[3]) - meta >= tonumber(total) then
  if failed > 0 then return move(ARGV[1], 'failed') end
  return move(ARGV[1], 'completed')
end
return 0`)

func (q *Queue) countKeys() []string { return []string{q.keys.Counted(), q.keys.Counts()} }

// move moves job id to bucket. It is best effort: a move lost is
// corrected by the next recount.
func (q *Queue) move(ctx context.Context, id, bucket string) {
	_ = moveScript.Run(context.WithoutCancel(ctx), q.rdb, q.countKeys(), id, bucket).Err()
}

// ended runs endedScript for directory dir: file is the ended file job's
// id suffix (failed: it failed for good), or "" when the directory's task
// has fanned out.
func (q *Queue) ended(ctx context.Context, dir, file string, failed bool) {
	mode := "file"
	switch {
	case file == "":
		mode = "fanned"
	case failed:
		mode = "failed"
	}
	keys := append(q.countKeys(), q.keys.Ended(dir), q.keys.Task(dir))
	ttl := max(q.opts.Retention, time.Minute) + q.opts.Timeout
	_ = endedScript.Run(context.WithoutCancel(ctx), q.rdb, keys, dir, mode, file, ttl.Milliseconds()).Err()
}

// countedAs moves the job a cancel marked: a top-level one to cancelled, a
// directory's file to its directory's ended files.
func (q *Queue) countedAs(ctx context.Context, id string) {
	if parent, suffix, ok := parentOf(id); ok {
		q.ended(ctx, parent, suffix, false)
		return
	}
	q.move(ctx, id, bucketCancelled)
}

// Counting is the worker's middleware that moves a job's counters as its
// run starts and as it succeeds (CountFailure hears of failures).
func (q *Queue) Counting(next asynq.Handler) asynq.Handler {
	return asynq.HandlerFunc(func(ctx context.Context, t *asynq.Task) error {
		id, _ := asynq.GetTaskID(ctx)
		var m indexMeta
		_ = json.Unmarshal(t.Payload(), &m)
		if m.ParentID == "" {
			q.move(ctx, id, bucketActive)
		}
		err := next.ProcessTask(ctx, t)
		switch {
		case err != nil:
		case m.ParentID != "":
			if parent, suffix, ok := parentOf(id); ok && parent == m.ParentID {
				q.ended(ctx, parent, suffix, false)
			}
		case t.Type() == TypeIngestDirectory:
			q.ended(ctx, id, "", false)
		default:
			q.move(ctx, id, bucketCompleted)
		}
		return err
	})
}

// CountFailure is for Asynq's error handler: it moves the counters of a
// task that failed with err as Asynq is about to (retry or archive it; a
// revoked task was cancelled).
func (q *Queue) CountFailure(ctx context.Context, t *asynq.Task, err error) {
	id, _ := asynq.GetTaskID(ctx)
	retried, _ := asynq.GetRetryCount(ctx)
	maxRetry, _ := asynq.GetMaxRetry(ctx)
	revoked := errors.Is(err, asynq.RevokeTask)
	final := revoked || errors.Is(err, asynq.SkipRetry) || retried >= maxRetry
	var m indexMeta
	_ = json.Unmarshal(t.Payload(), &m)
	switch {
	case m.ParentID != "":
		if parent, suffix, ok := parentOf(id); ok && final {
			q.ended(ctx, parent, suffix, !revoked)
		}
	case revoked:
		q.move(ctx, id, bucketCancelled)
	case final:
		q.move(ctx, id, bucketFailed)
	default:
		q.move(ctx, id, bucketPending)
	}
}

// bucketOf is the bucket of a job the walk read.
func bucketOf(s ragd.JobStatus) string {
	switch s {
	case ragd.JobQueued, ragd.JobRetry:
		return bucketPending
	case ragd.JobActive:
		return bucketActive
	case ragd.JobFailed:
		return bucketFailed
	case ragd.JobCancelled:
		return bucketCancelled
	}
	return bucketCompleted
}
