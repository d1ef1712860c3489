package jobs

import (
	"context"
	"encoding/json"

	"ragd"
)

// A directory job's status and progress come from its files, which a
// listing would otherwise read for every directory it shows or filters.
// Once every file has ended, the directory no longer changes: its job (as
// listed, without children) is kept in settledKey until its entry leaves
// the index.

// readListed reads the jobs of ids as a listing shows them, without
// children: a settled directory from its kept copy, the others from their
// records, keeping the directories that have settled since.
func (q *Queue) readListed(ctx context.Context, ids []string) ([]*ragd.Job, error) {
	out := make([]*ragd.Job, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	kept, err := q.rdb.HMGet(ctx, q.keys.Settled(), ids...).Result()
	if err != nil {
		return nil, err
	}
	var rest []int // indexes in ids of the jobs to read
	var restIDs []string
	for i, v := range kept {
		if s, ok := v.(string); ok {
			j := &ragd.Job{}
			if json.Unmarshal([]byte(s), j) == nil {
				out[i] = j
				continue
			}
		}
		rest, restIDs = append(rest, i), append(restIDs, ids[i])
	}
	jobs, err := q.readJobs(ctx, restIDs)
	if err != nil {
		return nil, err
	}
	settled := map[string]any{}
	for k, j := range jobs {
		if j == nil {
			continue
		}
		j.Children = nil
		if j.Type == TypeIngestDirectory && j.Status.Terminal() && j.Progress.Done == j.Progress.Total {
			if body, err := json.Marshal(j); err == nil {
				settled[j.ID] = body
			}
		}
		out[rest[k]] = j
	}
	if len(settled) > 0 {
		_ = q.rdb.HSet(ctx, q.keys.Settled(), settled).Err() // best effort: read again next time
	}
	return out, nil
}
