package jobs

import (
	"cmp"
	"context"
	"errors"
	"slices"
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
	created int64 // unix ms
	status  ragd.JobStatus
}

// List returns a page of the jobs callers asked for (a directory's
// per-file jobs are in its children), newest first, without their
// children, and how many jobs match. It reads every matching job's state
// but decodes only the page's records, and a completed directory's files
// only when a status filter needs its real status.
func (q *Queue) List(ctx context.Context, lq ListQuery) ([]ragd.Job, int, error) {
	if err := q.backfill(ctx); err != nil {
		return nil, 0, err
	}
	entries, err := q.entries(ctx, lq.Namespaces)
	if err != nil {
		return nil, 0, err
	}
	if entries, err = q.live(ctx, entries, lq.Status != ""); err != nil {
		return nil, 0, err
	}
	if lq.Status != "" {
		entries = slices.DeleteFunc(entries, func(e entry) bool { return e.status != lq.Status })
	}
	total := len(entries)
	page := entries[min(lq.Offset, total):min(lq.Offset+lq.Limit, total)]
	ids := make([]string, len(page))
	for i, e := range page {
		ids[i] = e.id
	}
	jobs, err := q.readJobs(ctx, ids)
	if err != nil {
		return nil, 0, err
	}
	out := make([]ragd.Job, 0, len(jobs))
	for _, j := range jobs {
		if j != nil { // gone since its state was read
			j.Children = nil
			out = append(out, *j)
		}
	}
	return out, total, nil
}

// entries reads the index of namespaces (nil: all), newest first.
func (q *Queue) entries(ctx context.Context, namespaces []string) ([]entry, error) {
	if namespaces == nil {
		var err error
		if namespaces, err = q.rdb.SMembers(ctx, q.namespacesKey()).Result(); err != nil {
			return nil, err
		}
	}
	cmds := make([]*redis.ZSliceCmd, len(namespaces))
	_, err := q.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		for i, ns := range namespaces {
			cmds[i] = p.ZRangeWithScores(ctx, q.indexKey(ns), 0, -1)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	var out []entry
	for i, cmd := range cmds {
		for _, z := range cmd.Val() {
			out = append(out, entry{id: z.Member.(string), ns: namespaces[i], created: int64(z.Score)})
		}
	}
	slices.SortFunc(out, func(a, b entry) int {
		return cmp.Or(cmp.Compare(b.created, a.created), cmp.Compare(b.id, a.id))
	})
	return out, nil
}

// live reads each entry's status and drops (and unindexes) the entries
// whose job is gone. A completed directory's status is its files' when
// exact is set; otherwise it is left completed, which only a filter would
// misread.
func (q *Queue) live(ctx context.Context, entries []entry, exact bool) ([]entry, error) {
	out := entries[:0]
	var dirs []int // indexes in out of completed directories
	grace := time.Now().Add(-indexGrace).UnixMilli()
	for start := 0; start < len(entries); start += childBatch {
		batch := entries[start:min(start+childBatch, len(entries))]
		states, ctls := make([]*redis.StringCmd, len(batch)), make([]*redis.StringCmd, len(batch))
		isDir := make([]*redis.BoolCmd, len(batch))
		_, err := q.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
			for i, e := range batch {
				states[i] = p.HGet(ctx, taskKey(q.opts.Queue, e.id), "state")
				ctls[i] = p.HGet(ctx, q.ctlKey(e.id), "status")
				isDir[i] = p.SIsMember(ctx, q.dirsKey(), e.id)
			}
			return nil
		})
		if err != nil && !errors.Is(err, redis.Nil) {
			return nil, err
		}
		for i := range batch {
			if err := cmp.Or(readErr(states[i]), readErr(ctls[i]), isDir[i].Err()); err != nil {
				return nil, err
			}
		}
		var gone []entry
		for i, e := range batch {
			state, known := taskStates[states[i].Val()]
			switch {
			case ctls[i].Val() == ctlCancelled:
				e.status = ragd.JobCancelled
			case !known && e.created < grace:
				gone = append(gone, e)
				continue
			case !known:
				e.status = ragd.JobQueued // indexed, being enqueued
			default:
				e.status = statusOf(state)
				if e.status == ragd.JobCompleted && isDir[i].Val() {
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

// directoryStatuses sets the completed directories' statuses from their files.
func (q *Queue) directoryStatuses(ctx context.Context, out []entry, dirs []int) error {
	ids := make([]string, len(dirs))
	for i, d := range dirs {
		ids[i] = out[d].id
	}
	jobs, err := q.readJobs(ctx, ids)
	if err != nil {
		return err
	}
	for i, j := range jobs {
		if j != nil {
			out[dirs[i]].status = j.Status
		}
	}
	return nil
}

// readErr is cmd's error, none for a missing key or field.
func readErr(cmd *redis.StringCmd) error {
	if errors.Is(cmd.Err(), redis.Nil) {
		return nil
	}
	return cmd.Err()
}

// unindex drops the entries of jobs that are gone. It is best effort: an
// entry left behind is dropped by the next listing.
func (q *Queue) unindex(ctx context.Context, gone []entry) {
	if len(gone) == 0 {
		return
	}
	_, _ = q.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		for _, e := range gone {
			p.ZRem(ctx, q.indexKey(e.ns), e.id)
			p.SRem(ctx, q.dirsKey(), e.id)
		}
		return nil
	})
}
