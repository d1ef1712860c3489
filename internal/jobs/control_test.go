package jobs

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/hibiken/asynq"
	"github.com/redis/go-redis/v9"

	"ragd"
	"ragd/internal/testkit/testenv"
)

// testQueue is a queue of its own in the fixtures' database, with no
// server: its tasks stay where the test puts them. Its Asynq and ragd keys
// are removed when the test ends.
func testQueue(t testing.TB) *Queue {
	t.Helper()
	opts, err := redis.ParseURL(testenv.RedisURL(t))
	if err != nil {
		t.Fatal(err)
	}
	opts.DB = fixtureDB
	rdb := redis.NewClient(opts)
	q := NewQueue(rdb, Options{Queue: "test-" + testenv.Unique(t, "Q"), MaxRetries: 3, Timeout: time.Minute, Retention: time.Hour})
	t.Cleanup(func() {
		_ = q.inspector.DeleteQueue(q.Name(), true)
		ctx := context.Background()
		for _, pattern := range []string{q.keys.Match(), "asynq:{" + q.Name() + "}:*"} {
			keys, _ := rdb.Keys(ctx, pattern).Result()
			if len(keys) > 0 {
				rdb.Del(ctx, keys...)
			}
		}
		_ = rdb.Close()
	})
	return q
}

func enqueueDoc(t testing.TB, q *Queue, ns, parent string) string {
	t.Helper()
	id := NewJobID()
	if parent != "" {
		id = childID(parent, 0)
	}
	err := q.EnqueueDocument(context.Background(), id, DocumentPayload{Namespace: ns, DocumentID: "doc-" + id, Source: "text://" + id,
		Text: "some text", ParentID: parent, CreatedAt: time.Now().UTC()})
	if err != nil {
		t.Fatal(err)
	}
	return id
}

func mustJob(t *testing.T, q *Queue, id string) *ragd.Job {
	t.Helper()
	job, err := q.Job(t.Context(), id)
	if err != nil {
		t.Fatalf("job %s: %v", id, err)
	}
	return job
}

// A job either commits or is cancelled, whichever claims it first: a job
// that has begun to commit refuses the cancel, and a cancelled one is
// refused its commit. A cancelled queued job leaves Asynq's queue and
// reads as cancelled from its record.
func TestCancelAndCommitExcludeEachOther(t *testing.T) {
	t.Parallel()
	q := testQueue(t)
	ctx := t.Context()

	committing := enqueueDoc(t, q, "docs", "")
	if err := q.ClaimCommit(ctx, Ref{ID: committing}); err != nil {
		t.Fatal(err)
	}
	err := q.Cancel(ctx, mustJob(t, q, committing))
	if ragd.KindOf(err) != ragd.KindConflict || !strings.Contains(err.Error(), "can no longer be cancelled") {
		t.Fatalf("cancel a committing job: %v", err)
	}
	if job := mustJob(t, q, committing); job.Status != ragd.JobQueued {
		t.Fatalf("refused cancel changed the job: %+v", job)
	}

	queued := enqueueDoc(t, q, "docs", "")
	if err := q.Cancel(ctx, mustJob(t, q, queued)); err != nil {
		t.Fatal(err)
	}
	if _, err := q.inspector.GetTaskInfo(q.Name(), queued); !errors.Is(err, asynq.ErrTaskNotFound) {
		t.Fatalf("cancelled task still queued: %v", err)
	}
	job := mustJob(t, q, queued)
	if job.Status != ragd.JobCancelled || job.Namespace != "docs" || job.Type != TypeIngestDocument || job.CompletedAt == nil {
		t.Fatalf("cancelled job: %+v", job)
	}
	if err := q.ClaimCommit(ctx, Ref{ID: queued}); !errors.Is(err, ErrCancelled) {
		t.Fatalf("commit of a cancelled job: %v", err)
	}
	if err := q.Cancel(ctx, job); ragd.KindOf(err) != ragd.KindConflict {
		t.Fatalf("cancel twice: %v", err)
	}
	if n, err := q.CancelledCount(ctx); n != 1 || err != nil {
		t.Fatalf("cancelled count %d, %v", n, err)
	}
}

// A file job of a cancelled directory finds itself cancelled when it runs
// (it was enqueued after the cancel read the directory's files) and is
// recorded cancelled; it may not commit.
func TestChildOfCancelledDirectoryCancelsItself(t *testing.T) {
	t.Parallel()
	q := testQueue(t)
	ctx := t.Context()
	dir := NewJobID()
	if err := q.EnqueueDirectory(ctx, dir, DirectoryPayload{Namespace: "docs", DirectoryPath: "/docs", CreatedAt: time.Now().UTC()}); err != nil {
		t.Fatal(err)
	}
	if err := q.Cancel(ctx, mustJob(t, q, dir)); err != nil {
		t.Fatal(err)
	}
	child := enqueueDoc(t, q, "docs", dir)
	ref := Ref{ID: child, ParentID: dir, Type: TypeIngestDocument, Namespace: "docs"}
	if cancelled, err := q.Cancelled(ctx, ref); !cancelled || err != nil {
		t.Fatalf("child of a cancelled directory: cancelled %v, %v", cancelled, err)
	}
	if job := mustJob(t, q, child); job.Status != ragd.JobCancelled {
		t.Fatalf("child: %+v", job)
	}
	if err := q.ClaimCommit(ctx, ref); !errors.Is(err, ErrCancelled) {
		t.Fatalf("child commits: %v", err)
	}
	// A job of a directory that was not cancelled may commit.
	other := NewJobID()
	if err := q.ClaimCommit(ctx, Ref{ID: childID(other, 0), ParentID: other}); err != nil {
		t.Fatal(err)
	}
}
