package jobs

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"ragd"
)

// ListQuery selects a page of jobs.
type ListQuery struct {
	// Namespaces to list; nil lists every namespace that has jobs.
	Namespaces []string
	// Status keeps only the jobs in it; empty keeps all.
	Status        ragd.JobStatus
	Offset, Limit int
}

// indexGrace is how long an index entry may lack its task: the time
// between indexing a job and enqueueing it.
const indexGrace = time.Minute

// entry is one indexed job.
type entry struct {
	id, ns  string
	created float64 // unix ms, to the µs: jobs created in one ms keep their order
	status  ragd.JobStatus
	viewer  string // the asker's audience key, when read (recount)
}

// List returns a page of the jobs callers asked for (a directory's
// per-file jobs are in its children), newest first, without their
// children, and how many jobs match. Asynq has no index by status: a
// status filter reads every job's state (one script call per childBatch,
// no decoding), and a completed directory's files to tell whether they
// have all ended. Only the page's records are decoded. Only the jobs ctx's
// audience may see are listed and counted (ragd.Audience.SeesJobsOf).
func (q *Queue) List(ctx context.Context, lq ListQuery) ([]ragd.Job, int, error) {
	if err := q.backfill(ctx); err != nil {
		return nil, 0, err
	}
	entries, err := q.visibleEntries(ctx, lq.Namespaces, ragd.AudienceIn(ctx))
	if err != nil {
		return nil, 0, err
	}
	if lq.Status != "" {
		if entries, err = q.live(ctx, entries, true); err != nil {
			return nil, 0, err
		}
		entries = slices.DeleteFunc(entries, func(e entry) bool { return e.status != lq.Status })
	} else {
		// No job created within the retention can have expired: only
		// older entries (the list's tail) need their job looked up.
		cutoff := float64(time.Now().Add(-q.opts.Retention).UnixMilli())
		young, _ := slices.BinarySearchFunc(entries, cutoff, func(e entry, c float64) int { return cmp.Compare(c, e.created) })
		old, err := q.live(ctx, entries[young:], false)
		if err != nil {
			return nil, 0, err
		}
		entries = append(entries[:young], old...)
	}
	total := len(entries)
	page := entries[min(lq.Offset, total):min(lq.Offset+lq.Limit, total)]
	ids := make([]string, len(page))
	for i, e := range page {
		ids[i] = e.id
	}
	jobs, err := q.readListed(ctx, ids)
	if err != nil {
		return nil, 0, err
	}
	out := make([]ragd.Job, 0, len(jobs))
	for _, j := range jobs {
		if j != nil { // gone since its state was read
			out = append(out, *j)
		}
	}
	return out, total, nil
}

// entries reads the index of namespaces (nil: all), newest first.
func (q *Queue) entries(ctx context.Context, namespaces []string) ([]entry, error) {
	if namespaces == nil {
		var err error
		if namespaces, err = q.rdb.SMembers(ctx, q.keys.Namespaces()).Result(); err != nil {
			return nil, err
		}
	}
	cmds := make([]*redis.ZSliceCmd, len(namespaces))
	_, err := q.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		for i, ns := range namespaces {
			cmds[i] = p.ZRangeWithScores(ctx, q.keys.Index(ns), 0, -1)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	var out []entry
	for i, cmd := range cmds {
		for _, z := range cmd.Val() {
			out = append(out, entry{id: z.Member.(string), ns: namespaces[i], created: z.Score})
		}
	}
	slices.SortFunc(out, func(a, b entry) int {
		return cmp.Or(cmp.Compare(b.created, a.created), cmp.Compare(b.id, a.id))
	})
	return out, nil
}

// visibleEntries is entries less the jobs aud may not see, none read for
// an audience that sees every job.
func (q *Queue) visibleEntries(ctx context.Context, namespaces []string, aud ragd.Audience) ([]entry, error) {
	entries, err := q.entries(ctx, namespaces)
	if err != nil || aud.All() {
		return entries, err
	}
	keys, err := q.viewersOf(ctx, entries)
	if err != nil {
		return nil, err
	}
	out := entries[:0]
	for i, e := range entries {
		if aud.SeesJobsOf(keys[i]) {
			out = append(out, e)
		}
	}
	return out, nil
}

// viewersOf reads the askers' audiences of entries (JobKeys.Viewers), one
// HMGET per childBatch. A job indexed before its asker was recorded is an
// operator's (ragd.EveryGroup).
func (q *Queue) viewersOf(ctx context.Context, entries []entry) ([]string, error) {
	out := make([]string, len(entries))
	for start := 0; start < len(entries); start += childBatch {
		batch := entries[start:min(start+childBatch, len(entries))]
		ids := make([]string, len(batch))
		for i, e := range batch {
			ids[i] = e.id
		}
		keys, err := q.rdb.HMGet(ctx, q.keys.Viewers(), ids...).Result()
		if err != nil {
			return nil, err
		}
		for i := range batch {
			key, ok := keys[i].(string)
			if !ok {
				key = ragd.EveryGroup
			}
			out[start+i] = key
		}
	}
	return out, nil
}

// Viewer is the Key of the audience of the principal that asked for job id
// (a directory's for one of its file jobs): ragd.EveryGroup when it is not
// recorded.
func (q *Queue) Viewer(ctx context.Context, id string) (string, error) {
	if parent, _, ok := parentOf(id); ok {
		id = parent
	}
	key, err := q.rdb.HGet(ctx, q.keys.Viewers(), id).Result()
	if errors.Is(err, redis.Nil) {
		return ragd.EveryGroup, nil
	}
	return key, err
}

// statesScript reads, for each job id ARGV[i], its task's state
// (KEYS[2i]), its control record's status (KEYS[2i+1]) and whether it is
// in the directories set (KEYS[1]), as "state\tstatus\t0|1" (empty
// strings for none): one call per batch where commands would cost three
// each. Every key is passed in KEYS, and all share the queue's hash tag,
// as a Redis Cluster requires of a script.
var statesScript = redis.NewScript(`
local out = {}
for i = 1, #ARGV do
  local state = redis.call('HGET', KEYS[2 * i], 'state') or ''
  local ctl = redis.call('HGET', KEYS[2 * i + 1], 'status') or ''
  out[#out + 1] = state .. '\t' .. ctl .. '\t' .. redis.call('SISMEMBER', KEYS[1], ARGV[i])
end
return out`)

// live reads each entry's status and drops (and unindexes) the entries
// whose job is gone. A completed directory's status is its files' when
// exact is set; otherwise it is left completed, which only a filter would
// misread.
func (q *Queue) live(ctx context.Context, entries []entry, exact bool) ([]entry, error) {
	out := entries[:0]
	var dirs []int // indexes in out of completed directories
	grace := float64(time.Now().Add(-indexGrace).UnixMilli())
	keys, args := make([]string, 0, 1+2*childBatch), make([]any, 0, childBatch)
	for start := 0; start < len(entries); start += childBatch {
		batch := entries[start:min(start+childBatch, len(entries))]
		keys, args = append(keys[:0], q.keys.Directories()), args[:0]
		for _, e := range batch {
			keys = append(keys, q.keys.Task(e.id), q.keys.Control(e.id))
			args = append(args, e.id)
		}
		vals, err := statesScript.Run(ctx, q.rdb, keys, args...).StringSlice()
		if err != nil {
			return nil, err
		}
		var gone []entry
		for i, e := range batch {
			name, rest, _ := strings.Cut(vals[i], "\t")
			ctl, isDir, _ := strings.Cut(rest, "\t")
			state, known := taskStates[name]
			switch {
			case ctl == ctlCancelled:
				e.status = ragd.JobCancelled
			case !known && e.created < grace:
				gone = append(gone, e)
				continue
			case !known:
				e.status = ragd.JobQueued // indexed, being enqueued
			default:
				e.status = statusOf(state)
				if e.status == ragd.JobCompleted && isDir == "1" {
					dirs = append(dirs, len(out))
				}
			}
			out = append(out, e)
		}
		q.unindex(ctx, gone)
	}
	if exact && len(dirs) > 0 {
		return out, q.directoryStatuses(ctx, out, dirs)
	}
	return out, nil
}

// directoryStatuses sets the completed directories' statuses from their
// files (listedStatus).
func (q *Queue) directoryStatuses(ctx context.Context, out []entry, dirs []int) error {
	ids := make([]string, len(dirs))
	for i, d := range dirs {
		ids[i] = out[d].id
	}
	jobs, err := q.readListed(ctx, ids)
	if err != nil {
		return err
	}
	for i, j := range jobs {
		if j != nil {
			out[dirs[i]].status = listedStatus(j)
		}
	}
	return nil
}

// unindex drops the entries of jobs that are gone. It is best effort: an
// entry left behind is dropped by the next listing.
func (q *Queue) unindex(ctx context.Context, gone []entry) {
	if len(gone) == 0 {
		return
	}
	_, _ = q.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		for _, e := range gone {
			p.ZRem(ctx, q.keys.Index(e.ns), e.id)
			p.SRem(ctx, q.keys.Directories(), e.id)
			p.HDel(ctx, q.keys.Settled(), e.id)
			p.HDel(ctx, q.keys.Viewers(), e.id)
			p.HDel(ctx, q.keys.Counted(), e.id) // its counter is corrected by the next recount
		}
		return nil
	})
}

// listedStatus is the status a status filter and the queue counts take
// job j by: its own, but failed for a directory job that completed with
// files that failed for good (its result's files_failed). Such a directory
// still reads completed (a failed file does not fail the others), yet the
// Asynq web UI shows each failed file's task as archived: `GET
// /jobs?status=failed`, `ragd jobs --status failed` and rag_stats' failed
// count find the job those tasks belong to, and status=completed keeps
// the directories whose every file completed.
func listedStatus(j *ragd.Job) ragd.JobStatus {
	if j.Status != ragd.JobCompleted || j.Type != TypeIngestDirectory {
		return j.Status
	}
	var r ragd.DirectoryResult
	if json.Unmarshal(j.Result, &r) == nil && r.FilesFailed > 0 {
		return ragd.JobFailed
	}
	return j.Status
}
