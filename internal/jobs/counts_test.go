package jobs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/hibiken/asynq"
	"github.com/redis/go-redis/v9"

	"ragd"
)

// countingRig runs q's jobs on an Asynq server wired as the worker's
// (Queue.Counting, Queue.CountFailure), each run of a document job waiting
// for what its path's gate sends: nil completes it, an error fails it.
type countingRig struct {
	q     *Queue
	mu    sync.Mutex
	gates map[string]chan error
}

func (r *countingRig) gate(path string) chan error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.gates[path] == nil {
		r.gates[path] = make(chan error)
	}
	return r.gates[path]
}

var eng = &[]string{"eng"}

// files is how many files the rig's directory jobs fan out.
const files = 3

func (r *countingRig) filePath(dir string, i int) string { return fmt.Sprintf("/%s/%d", dir, i) }

func startCounting(t *testing.T) *countingRig {
	t.Helper()
	r := &countingRig{q: testQueue(t), gates: map[string]chan error{}}
	q := r.q
	srv := asynq.NewServerFromRedisClient(q.rdb, asynq.Config{
		Concurrency: 8, Queues: map[string]int{q.Name(): 1}, Logger: quiet{}, ShutdownTimeout: 5 * time.Second,
		TaskCheckInterval: 20 * time.Millisecond,
		RetryDelayFunc:    func(int, error, *asynq.Task) time.Duration { return time.Hour },
		ErrorHandler:      asynq.ErrorHandlerFunc(q.CountFailure),
	})
	mux := asynq.NewServeMux()
	mux.Use(q.Counting)
	mux.HandleFunc(TypeIngestDocument, r.document)
	mux.HandleFunc(TypeIngestDirectory, func(ctx context.Context, task *asynq.Task) error {
		id, _ := asynq.GetTaskID(ctx)
		ids, paths := make([]string, files), make([]string, files)
		for i := range files {
			ids[i], paths[i] = childID(id, i), r.filePath(id, i)
			err := q.EnqueueDocument(ctx, ids[i], DocumentPayload{Namespace: "docs", FilePath: paths[i], ParentID: id,
				Viewer: eng, CreatedAt: time.Now()})
			if err != nil {
				return err
			}
		}
		NewReporter(task).Children(ids, paths)
		return nil
	})
	if err := srv.Start(mux); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Shutdown)
	// The counters are recounted once, then trusted for the whole test:
	// every count below comes from ragd's own moves.
	if _, err := q.Stats(t.Context(), nil); err != nil {
		t.Fatal(err)
	}
	if err := q.rdb.Set(t.Context(), q.keys.CountedAt(), "test", 0).Err(); err != nil {
		t.Fatal(err)
	}
	return r
}

func (r *countingRig) document(ctx context.Context, task *asynq.Task) error {
	id, _ := asynq.GetTaskID(ctx)
	pl, err := decodeDocument(task)
	if err != nil {
		return err
	}
	select {
	case err := <-r.gate(pl.FilePath):
		if err == nil && pl.ParentID != "" {
			return r.q.FileDone(ctx, id, pl, ragd.Progress{}, ragd.DocumentResult{Source: pl.FilePath})
		}
		return err
	case <-ctx.Done(): // cancelled, as the worker's cancellable ends
		_ = r.q.Stopped(context.WithoutCancel(ctx), id)
		return fmt.Errorf("%w: %w", ErrCancelled, asynq.RevokeTask)
	}
}

// enqueue enqueues a document job of path, asked for by viewer.
func (r *countingRig) enqueue(t *testing.T, path string, viewer *[]string) string {
	t.Helper()
	id := NewJobID()
	if err := r.q.EnqueueDocument(t.Context(), id, DocumentPayload{Namespace: "docs", FilePath: path, Viewer: viewer, CreatedAt: time.Now()}); err != nil {
		t.Fatal(err)
	}
	return id
}

// waitState waits until Asynq holds task id in state.
func (r *countingRig) waitState(t *testing.T, id string, state asynq.TaskState) {
	t.Helper()
	r.waitFor(t, id+" "+state.String(), func() bool {
		info, err := r.q.inspector.GetTaskInfo(r.q.Name(), id)
		return err == nil && info.State == state
	})
}

func (r *countingRig) waitFor(t *testing.T, what string, ok func() bool) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); !ok(); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("waited in vain for %s", what)
		}
	}
}

// agree checks that Stats, from the counters and never recounting, comes
// to what the walk counts, for an operator and for a limited audience.
func (r *countingRig) agree(t *testing.T, step string) {
	t.Helper()
	ctx := t.Context()
	for _, aud := range []ragd.Audience{ragd.EveryDocument(), ragd.ViewerAudience(eng)} {
		var got, want Stats
		for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
			var err error
			if want, err = r.q.walkStats(ctx, nil, aud); err != nil {
				t.Fatal(err)
			}
			if got, err = r.q.Stats(ragd.WithAudience(ctx, aud), nil); err != nil {
				t.Fatal(err)
			}
			if got == want || time.Now().After(deadline) {
				break
			}
		}
		if got != want {
			t.Fatalf("%s, audience %q: counters %+v, walk %+v", step, aud.Key(), got, want)
		}
		if stamp := r.q.rdb.Get(ctx, r.q.keys.CountedAt()).Val(); stamp != "test" {
			t.Fatalf("%s: the counters were recounted (%q), so their moves went untested", step, stamp)
		}
	}
}

// TestStatsCountersFollowJobs drives real jobs through their lives and
// checks after each step that the counters Stats reads agree with the walk
// of every job.
func TestStatsCountersFollowJobs(t *testing.T) {
	r := startCounting(t)
	q, ctx := r.q, t.Context()
	if err := q.inspector.PauseQueue(q.Name()); err != nil {
		t.Fatal(err)
	}
	failing := r.enqueue(t, "/failing", eng)
	queuedCancel := r.enqueue(t, "/queued-cancel", nil)
	r.agree(t, "queued")
	job, err := q.Job(ctx, queuedCancel)
	if err != nil {
		t.Fatal(err)
	}
	if err := q.Cancel(ctx, job); err != nil {
		t.Fatal(err)
	}
	r.agree(t, "cancelled while queued")
	if err := q.inspector.UnpauseQueue(q.Name()); err != nil {
		t.Fatal(err)
	}
	r.waitState(t, failing, asynq.TaskStateActive)
	r.agree(t, "active")
	r.gate("/failing") <- errors.New("embedder timed out")
	r.waitState(t, failing, asynq.TaskStateRetry)
	r.agree(t, "waiting to retry")
	if err := q.inspector.RunTask(q.Name(), failing); err != nil {
		t.Fatal(err)
	}
	r.waitState(t, failing, asynq.TaskStateActive)
	r.agree(t, "retrying")
	r.gate("/failing") <- fmt.Errorf("unreadable: %w", asynq.SkipRetry)
	r.waitState(t, failing, asynq.TaskStateArchived)
	r.agree(t, "failed")

	completing := r.enqueue(t, "/completing", eng)
	r.gate("/completing") <- nil
	r.waitState(t, completing, asynq.TaskStateCompleted)
	r.agree(t, "completed")

	running := r.enqueue(t, "/active-cancel", nil)
	r.waitState(t, running, asynq.TaskStateActive)
	if job, err = q.Job(ctx, running); err != nil {
		t.Fatal(err)
	}
	if err := q.Cancel(ctx, job); err != nil {
		t.Fatal(err)
	}
	r.waitFor(t, "the cancelled run to be revoked", func() bool {
		_, err := q.inspector.GetTaskInfo(q.Name(), running)
		return errors.Is(err, asynq.ErrTaskNotFound)
	})
	r.agree(t, "cancelled while running")

	r.directory(t)
}

// directory runs a directory job of three files: one completes, one fails,
// and the directory is active until the last one ends.
func (r *countingRig) directory(t *testing.T) {
	q, dir := r.q, NewJobID()
	if err := q.EnqueueDirectory(t.Context(), dir, DirectoryPayload{Namespace: "docs", DirectoryPath: "/d", Viewer: eng, CreatedAt: time.Now()}); err != nil {
		t.Fatal(err)
	}
	r.waitState(t, dir, asynq.TaskStateCompleted)
	r.agree(t, "directory fanned out")
	r.gate(r.filePath(dir, 0)) <- nil
	r.gate(r.filePath(dir, 1)) <- fmt.Errorf("unreadable: %w", asynq.SkipRetry)
	r.waitState(t, childID(dir, 1), asynq.TaskStateArchived)
	r.waitFor(t, "the first file's outcome", func() bool {
		return q.rdb.HExists(t.Context(), q.keys.Files(dir), "0").Val()
	})
	r.agree(t, "directory with a file left")
	r.gate(r.filePath(dir, 2)) <- nil
	r.waitFor(t, "the last file's outcome", func() bool {
		return q.rdb.HExists(t.Context(), q.keys.Files(dir), "2").Val()
	})
	r.agree(t, "directory ended")
}

// TestStatsCountersCorrected drifts the counters on purpose and shows a
// recount restoring the walk's counts: once the counters are no longer
// trusted (their stamp expired), and at once when one reads negative.
func TestStatsCountersCorrected(t *testing.T) {
	q, ctx := testQueue(t), t.Context()
	limited := ragd.ViewerAudience(eng)
	seedRetained(t, q, "docs", 50, limited)
	stats := func(aud ragd.Audience) (got, want Stats) {
		t.Helper()
		var err error
		if got, err = q.Stats(ragd.WithAudience(ctx, aud), nil); err != nil {
			t.Fatal(err)
		}
		if want, err = q.walkStats(ctx, nil, aud); err != nil {
			t.Fatal(err)
		}
		return got, want
	}
	if got, want := stats(ragd.EveryDocument()); got != want {
		t.Fatalf("first count %+v, walk %+v", got, want)
	}
	field := "docs" + countSep + limited.Key() + countSep + bucketActive
	q.rdb.HIncrBy(ctx, q.keys.Counts(), field, 5)
	// A task deleted behind ragd's back: the walk counts it queued now.
	q.rdb.Del(ctx, q.keys.Task("bench-000004"))
	for _, aud := range []ragd.Audience{ragd.EveryDocument(), limited} {
		if got, want := stats(aud); got == want {
			t.Fatalf("audience %q: drifted counters agree with the walk (%+v)", aud.Key(), got)
		}
	}
	q.rdb.Del(ctx, q.keys.CountedAt()) // as it expires
	for _, aud := range []ragd.Audience{ragd.EveryDocument(), limited} {
		if got, want := stats(aud); got != want {
			t.Fatalf("audience %q: recounted %+v, walk %+v", aud.Key(), got, want)
		}
	}
	q.rdb.HIncrBy(ctx, q.keys.Counts(), field, -100)
	if got, want := stats(limited); got != want {
		t.Fatalf("after a negative counter %+v, walk %+v", got, want)
	}
}

// decodeDocument is a document task's payload.
func decodeDocument(task *asynq.Task) (DocumentPayload, error) {
	var pl DocumentPayload
	return pl, json.Unmarshal(task.Payload(), &pl)
}

// TestStatsRoundTripsConstant counts the Redis round trips of Stats with
// more jobs retained than one batch of the walk reads: the same few
// (the backfill check, then the counters) whatever the number of jobs,
// for an operator and for a limited audience.
func TestStatsRoundTripsConstant(t *testing.T) {
	q := testQueue(t)
	limited := ragd.ViewerAudience(eng)
	trips := &roundTrips{}
	q.rdb.(*redis.Client).AddHook(trips)
	for _, n := range []int{3 * childBatch, 6 * childBatch} {
		seedRetained(t, q, fmt.Sprintf("docs-%d", n), n, limited)
		if _, err := q.Stats(t.Context(), nil); err != nil { // recounts what was seeded
			t.Fatal(err)
		}
		for _, aud := range []ragd.Audience{ragd.EveryDocument(), limited} {
			trips.n.Store(0)
			if _, err := q.Stats(ragd.WithAudience(t.Context(), aud), nil); err != nil {
				t.Fatal(err)
			}
			if got := trips.n.Load(); got > 2 {
				t.Errorf("%d jobs, audience %q: %d round trips, want at most 2", n, aud.Key(), got)
			}
		}
	}
}
