package jobs

import (
	"context"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/redis/go-redis/v9"

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

// Stats counts the jobs of namespaces (nil: every namespace) that ctx's audience may
// see (ragd.Audience.SeesJobsOf) by the status
// the job listing gives them, so a count and `GET /jobs?status=` agree: a
// job is a top-level job (a directory counts once, by its files; its
// per-file jobs are not jobs of their own), and a cancelled job is
// cancelled, never failed, although Asynq archives its task as it does a
// failed one. Asynq's own counters (its web UI, /metrics) count tasks,
// per-file ones included, and cancelled ones as archived.
//
// It reads the counters (counts.go) in one round trip after the backfill
// check; when they are no longer trusted it recounts them with the walk,
// or walks when another process is recounting and they read negative or
// were never counted.
func (q *Queue) Stats(ctx context.Context, namespaces []string) (Stats, error) {
	aud := ragd.AudienceIn(ctx)
	if err := q.backfill(ctx); err != nil {
		return Stats{}, err
	}
	var counts *redis.MapStringStringCmd
	var fresh *redis.IntCmd
	_, err := q.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		counts, fresh = p.HGetAll(ctx, q.keys.Counts()), p.Exists(ctx, q.keys.CountedAt())
		return nil
	})
	if err != nil {
		return Stats{}, err
	}
	st, negative := sumCounts(counts.Val(), namespaces, aud)
	if fresh.Val() == 1 && !negative {
		return st, nil
	}
	token := uuid.NewString()
	mine, err := q.rdb.SetNX(ctx, q.keys.Recount(), token, recountLease).Result()
	switch {
	case err != nil:
		return Stats{}, err
	case !mine && (negative || len(counts.Val()) == 0):
		return q.walkStats(ctx, namespaces, aud)
	case !mine:
		return st, nil
	}
	defer releaseScript.Run(context.WithoutCancel(ctx), q.rdb, []string{q.keys.Recount()}, token)
	fields, err := q.recount(ctx)
	if err != nil {
		return Stats{}, err
	}
	st, _ = sumCounts(fields, namespaces, aud)
	return st, nil
}

// recountLease bounds a recount that never releases its lease.
const recountLease = time.Minute

// releaseScript deletes a lease KEYS[1] that still holds token ARGV[1].
var releaseScript = redis.NewScript(`
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0`)

// sumCounts sums the counters of namespaces (nil: all) that aud may see;
// negative reports a counter below zero, which a recount must correct.
func sumCounts(fields map[string]string, namespaces []string, aud ragd.Audience) (st Stats, negative bool) {
	want := make(map[string]bool, len(namespaces))
	for _, ns := range namespaces {
		want[ns] = true
	}
	for f, v := range fields {
		n, _ := strconv.Atoi(v)
		negative = negative || n < 0
		ns, rest, _ := strings.Cut(f, countSep)
		key, bucket, _ := strings.Cut(rest, countSep)
		if (namespaces != nil && !want[ns]) || !aud.SeesJobsOf(key) {
			continue
		}
		switch bucket {
		case bucketPending:
			st.Pending += n
		case bucketActive:
			st.Active += n
		case bucketFailed:
			st.Failed += n
		case bucketCancelled:
			st.Cancelled += n
		}
	}
	return st, negative
}

// recount rewrites the counters from the walk of every job and returns them.
func (q *Queue) recount(ctx context.Context) (map[string]string, error) {
	entries, err := q.entries(ctx, nil)
	if err != nil {
		return nil, err
	}
	viewers, err := q.viewersOf(ctx, entries)
	if err != nil {
		return nil, err
	}
	for i := range entries {
		entries[i].viewer = viewers[i]
	}
	if entries, err = q.live(ctx, entries, true); err != nil {
		return nil, err
	}
	counted, counts := make(map[string]any, len(entries)), map[string]int{}
	for _, e := range entries {
		field := e.ns + countSep + e.viewer + countSep + bucketOf(e.status)
		counted[e.id] = field
		counts[field]++
	}
	out := make(map[string]string, len(counts))
	_, err = q.rdb.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.Del(ctx, q.keys.Counted(), q.keys.Counts())
		for f, n := range counts {
			out[f] = strconv.Itoa(n)
			p.HSet(ctx, q.keys.Counts(), f, n)
		}
		if len(counted) > 0 {
			p.HSet(ctx, q.keys.Counted(), counted)
		}
		p.Set(ctx, q.keys.CountedAt(), time.Now().UTC().Format(time.RFC3339), countFresh)
		return nil
	})
	return out, err
}

// walkStats is Stats by reading every job's status: what the counters
// must agree with.
func (q *Queue) walkStats(ctx context.Context, namespaces []string, aud ragd.Audience) (Stats, error) {
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
