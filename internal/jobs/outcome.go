package jobs

import (
	"context"
	"encoding/json"
	"strings"
	"time"

	"github.com/hibiken/asynq"
	"github.com/redis/go-redis/v9"

	"ragd"
)

// A directory's file jobs are most of a large ingest's jobs, one per file,
// and Asynq keeps every finished task's whole record (message, payload,
// result: about 1.4 KB with its place in the completed set) for the
// retention. A file job therefore is not retained by Asynq: when it
// completes it leaves a small outcome under its directory
// (JobKeys.Files, one field per file job), and Asynq deletes its task. A
// reader that finds the task gone reads the outcome instead; the outcomes
// of a directory expire together, the retention after the last one was
// written. A file job that fails or is cancelled keeps its records as any
// job does.

// fileOutcome is a completed file job as its directory keeps it: its
// result (ragd.DocumentResult) under short names, without its document id,
// which follows from the namespace and the source (ragd.DocumentID), and
// without its progress when that is the usual {chunks, chunks, "chunks"}.
type fileOutcome struct {
	Namespace   string         `json:"ns"`
	CreatedAt   int64          `json:"c"` // unix ns, the directory's
	CompletedAt int64          `json:"d"` // unix s, as Asynq records it
	Retried     int            `json:"r,omitempty"`
	Progress    *ragd.Progress `json:"p,omitempty"`
	Source      string         `json:"s"`
	Chunks      int            `json:"n"`
	DedupHit    bool           `json:"dd,omitempty"`
	ContentHash string         `json:"h,omitempty"`
	Replaced    int            `json:"x,omitempty"`
	Images      int            `json:"i,omitempty"`
	PagesOCR    int            `json:"o,omitempty"`
	MovedFrom   string         `json:"mv,omitempty"`
	Carried     int            `json:"vc,omitempty"`
	TraceID     string         `json:"t,omitempty"`
}

func newOutcome(pl DocumentPayload, retried int, progress ragd.Progress, res ragd.DocumentResult) fileOutcome {
	o := fileOutcome{Namespace: pl.Namespace, CreatedAt: pl.CreatedAt.UnixNano(), CompletedAt: time.Now().Unix(),
		Retried: retried, Source: res.Source, Chunks: res.ChunksIndexed, DedupHit: res.DedupHit,
		ContentHash: res.ContentHash, Replaced: res.Replaced, Images: res.ImagesIndexed, PagesOCR: res.PagesOCR,
		MovedFrom: res.MovedFrom, Carried: res.VectorsCarried, TraceID: pl.Trace.TraceID()}
	if progress != o.usualProgress() {
		o.Progress = &progress
	}
	return o
}

func (o fileOutcome) usualProgress() ragd.Progress {
	return ragd.Progress{Done: o.Chunks, Total: o.Chunks, Unit: "chunks"}
}

func (o fileOutcome) result() ragd.DocumentResult {
	return ragd.DocumentResult{DocumentID: ragd.DocumentID(o.Namespace, o.Source), Source: o.Source, ChunksIndexed: o.Chunks,
		DedupHit: o.DedupHit, ContentHash: o.ContentHash, Replaced: o.Replaced, ImagesIndexed: o.Images, PagesOCR: o.PagesOCR,
		MovedFrom: o.MovedFrom, VectorsCarried: o.Carried}
}

// IsFileJob reports whether id is one file's job of a directory job
// rather than a job of its own.
func IsFileJob(id string) bool { _, _, ok := parentOf(id); return ok }

// parentOf splits a file job's id, <directory id>.<suffix> (worker's
// ChildJobID), into the directory's id and the suffix; ok is false for a
// top-level job's id (a UUID, with no dot).
func parentOf(id string) (parent, suffix string, ok bool) {
	i := strings.LastIndexByte(id, '.')
	if i <= 0 || i == len(id)-1 {
		return "", "", false
	}
	return id[:i], id[i+1:], true
}

// fileRetention is a file job's Asynq retention option: none, as its
// outcome stands for it (FileDone).
func fileRetention(p DocumentPayload) []asynq.Option {
	if p.ParentID == "" {
		return nil
	}
	return []asynq.Option{asynq.Retention(0)}
}

// FileDone records that file job id of a directory completed with res:
// its outcome is written under the directory and its control record goes,
// in one transaction, before Asynq deletes its task. The directory's own
// record, which Asynq would delete the retention after the directory
// fanned out, is kept until the retention after this file (its expiry in
// Asynq's completed set moved on, never back): a directory is finished
// only when its files are. A job without a directory records nothing here
// (its task is retained).
func (q *Queue) FileDone(ctx context.Context, id string, pl DocumentPayload, progress ragd.Progress, res ragd.DocumentResult) error {
	parent, suffix, ok := parentOf(id)
	if pl.ParentID == "" || !ok || parent != pl.ParentID {
		return nil
	}
	retried, _ := asynq.GetRetryCount(ctx)
	body, err := json.Marshal(newOutcome(pl, retried, progress, res))
	if err != nil {
		return err
	}
	key, keep := q.keys.Files(parent), max(q.opts.Retention, time.Minute)
	_, err = q.rdb.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.HSet(ctx, key, suffix, body)
		p.PExpire(ctx, key, keep)
		p.Del(ctx, q.keys.Control(id))
		p.ZAddArgs(ctx, q.keys.Completed(), redis.ZAddArgs{XX: true, GT: true,
			Members: []redis.Z{{Score: float64(time.Now().Add(keep).Unix()), Member: parent}}})
		return nil
	})
	return err
}

// outcomeJob is the job an outcome describes, nil for none or an
// unreadable one.
func outcomeJob(id, raw string) *ragd.Job {
	o, ok := parseOutcome(raw)
	if !ok {
		return nil
	}
	body, err := json.Marshal(o.result())
	if err != nil {
		return nil
	}
	progress := o.usualProgress()
	if o.Progress != nil {
		progress = *o.Progress
	}
	done := time.Unix(o.CompletedAt, 0).UTC()
	return &ragd.Job{ID: id, Type: TypeIngestDocument, Namespace: o.Namespace, Status: ragd.JobCompleted,
		Progress: progress, Result: body, Retried: o.Retried, CreatedAt: time.Unix(0, o.CreatedAt).UTC(), CompletedAt: &done,
		TraceID: o.TraceID}
}

// parseOutcome reads an outcome as kept; ok is false for none or an
// unreadable one.
func parseOutcome(raw string) (fileOutcome, bool) {
	var o fileOutcome
	if raw == "" || json.Unmarshal([]byte(raw), &o) != nil {
		return o, false
	}
	return o, true
}

// CompletedFiles returns the ids of directory job dir's file jobs that have
// completed (their outcomes): a retried directory enqueues the others only,
// since a completed file's task is not kept for Asynq to refuse a repeat.
func (q *Queue) CompletedFiles(ctx context.Context, dir string) (map[string]bool, error) {
	suffixes, err := q.rdb.HKeys(ctx, q.keys.Files(dir)).Result()
	if err != nil {
		return nil, err
	}
	done := make(map[string]bool, len(suffixes))
	for _, s := range suffixes {
		done[dir+"."+s] = true
	}
	return done, nil
}

// readOutcome queues, on p, the read of file job id's outcome; nil for a
// top-level job.
func (q *Queue) readOutcome(ctx context.Context, p redis.Pipeliner, id string) *redis.StringCmd {
	parent, suffix, ok := parentOf(id)
	if !ok {
		return nil
	}
	return p.HGet(ctx, q.keys.Files(parent), suffix)
}
