package jobs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hibiken/asynq"
	"github.com/redis/go-redis/v9"

	"ragd"
	"ragd/internal/testkit/testenv"
)

// outcome is what happens to one child of a test directory job.
type outcome int

const (
	indexed  outcome = iota // completes with chunksOf(i) chunks
	failed                  // fails for good
	retrying                // failed once and waits to retry
	running                 // still in its handler
	queued                  // enqueued while the queue is paused
	expired                 // never in Redis, like a record past its retention
)

// directory is a directory job fanned out the way the worker does it: its
// task enqueues the children with EnqueueDocument and records them with
// Reporter.Children. Children [0, enqueued) run on an Asynq server, the
// next pending are enqueued while the queue is paused, and the rest never
// exist.
type directory struct {
	queue    *Queue
	redisURL string
	parentID string
	total    int
	enqueued int
	pending  int
}

func (d *directory) outcome(i int) outcome {
	switch {
	case i >= d.enqueued+d.pending:
		return expired
	case i >= d.enqueued:
		return queued
	case i == 2:
		return running
	case i%10 == 0:
		return failed
	case i%10 == 1:
		return retrying
	}
	return indexed
}

func chunksOf(i int) int { return i%7 + 1 }

// fixtureDB is the Redis database the directory fixtures use.
const fixtureDB = 1

// childID is worker.ChildJobID (which this package cannot import).
func childID(parentID string, i int) string { return fmt.Sprintf("%s.%d", parentID, i) }

func childPath(i int) string { return fmt.Sprintf("/docs/file-%05d.md", i) }

// startDirectory runs a directory job of total children until every child
// that runs has settled, then pauses the queue and enqueues the pending ones.
func startDirectory(t testing.TB, total, enqueued, pending int) *directory {
	t.Helper()
	opts, err := redis.ParseURL(testenv.RedisURL(t))
	if err != nil {
		t.Fatal(err)
	}
	// A database of its own: the cleanup deletes the queue, and a queue
	// vanishing from the shared database's list fails any other package's
	// test that lists every queue at that moment (the Asynq web UI does).
	opts.DB = fixtureDB
	url := fmt.Sprintf("redis://%s/%d", opts.Addr, fixtureDB)
	rdb := redis.NewClient(opts)
	t.Cleanup(func() { _ = rdb.Close() })
	name := "test-" + testenv.Unique(t, "J")
	d := &directory{queue: NewQueue(rdb, Options{Queue: name, MaxRetries: 3, Timeout: time.Minute, Retention: time.Hour}),
		redisURL: url, parentID: NewJobID(), total: total, enqueued: enqueued, pending: pending}

	srv := asynq.NewServerFromRedisClient(rdb, asynq.Config{
		Concurrency: 32, Queues: map[string]int{name: 1}, Logger: quiet{}, ShutdownTimeout: 5 * time.Second,
		// Retrying children must still be retrying when the test reads them.
		RetryDelayFunc: func(int, error, *asynq.Task) time.Duration { return time.Hour },
	})
	release := make(chan struct{})
	mux := asynq.NewServeMux()
	mux.HandleFunc(TypeIngestDirectory, func(ctx context.Context, task *asynq.Task) error {
		id, _ := asynq.GetTaskID(ctx)
		ids, paths := make([]string, total), make([]string, total)
		for i := range total {
			ids[i], paths[i] = childID(id, i), childPath(i)
		}
		for i := range enqueued {
			if err := d.enqueueChild(ctx, i); err != nil {
				return err
			}
		}
		rep := NewReporter(task)
		rep.Children(ids, paths)
		rep.Result(ragd.DirectoryResult{DirectoryPath: "/docs", FilesTotal: total})
		return nil
	})
	mux.HandleFunc(TypeIngestDocument, func(ctx context.Context, task *asynq.Task) error {
		id, _ := asynq.GetTaskID(ctx)
		i, _ := strconv.Atoi(id[strings.LastIndexByte(id, '.')+1:])
		switch d.outcome(i) {
		case running:
			select {
			case <-release:
			case <-ctx.Done():
			}
			return nil
		case failed:
			return fmt.Errorf("unreadable file: %w", asynq.SkipRetry)
		case retrying:
			return errors.New("embedder timed out")
		}
		var pl DocumentPayload
		if err := json.Unmarshal(task.Payload(), &pl); err != nil {
			return err
		}
		res := ragd.DocumentResult{DocumentID: pl.DocumentID, Source: pl.Source, ChunksIndexed: chunksOf(i)}
		return d.queue.FileDone(ctx, id, pl, ragd.Progress{Done: chunksOf(i), Total: chunksOf(i), Unit: "chunks"}, res)
	})
	if err := srv.Start(mux); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		close(release)
		srv.Shutdown()
		_ = d.queue.inspector.DeleteQueue(name, true)
	})

	ctx := context.Background()
	if err := d.queue.EnqueueDirectory(ctx, d.parentID, DirectoryPayload{Namespace: "docs", DirectoryPath: "/docs", CreatedAt: time.Now()}); err != nil {
		t.Fatal(err)
	}
	d.waitSettled(t)
	if err := d.queue.inspector.PauseQueue(name); err != nil {
		t.Fatal(err)
	}
	for i := enqueued; i < enqueued+pending; i++ {
		if err := d.enqueueChild(ctx, i); err != nil {
			t.Fatal(err)
		}
	}
	return d
}

func (d *directory) enqueueChild(ctx context.Context, i int) error {
	source := "file://" + childPath(i)
	return d.queue.EnqueueDocument(ctx, childID(d.parentID, i), DocumentPayload{Namespace: "docs",
		DocumentID: ragd.DocumentID("docs", source), Source: source, FilePath: childPath(i), ParentID: d.parentID, CreatedAt: time.Now()})
}

// waitSettled waits until the parent and every child but the running one
// have finished, failed or been put off for a retry.
func (d *directory) waitSettled(t testing.TB) {
	t.Helper()
	inHandler, done := 0, 0
	for i := range d.enqueued {
		switch d.outcome(i) {
		case running:
			inHandler++
		case indexed:
			done++
		}
	}
	// Indexed files leave outcomes, not tasks (outcome.go).
	want := 1 + d.enqueued - inHandler - done
	deadline := time.Now().Add(2 * time.Minute)
	for {
		info, err := d.queue.inspector.GetQueueInfo(d.queue.Name())
		if err != nil {
			t.Fatal(err)
		}
		outcomes, err := d.queue.rdb.HLen(context.Background(), d.queue.keys.Files(d.parentID)).Result()
		if err != nil {
			t.Fatal(err)
		}
		if info.Pending == 0 && info.Active == inHandler && info.Completed+info.Archived+info.Retry == want && outcomes == int64(done) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("directory job did not settle: %+v", info)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// reader returns a queue on a client of its own that counts its Redis
// round trips (connection handshakes included).
func (d *directory) reader(t testing.TB) (*Queue, *roundTrips) {
	t.Helper()
	opts, err := redis.ParseURL(d.redisURL)
	if err != nil {
		t.Fatal(err)
	}
	rdb := redis.NewClient(opts)
	t.Cleanup(func() { _ = rdb.Close() })
	trips := &roundTrips{}
	rdb.AddHook(trips)
	return NewQueue(rdb, d.queue.opts), trips
}

// roundTrips counts a client's round trips to Redis: one per command sent
// alone, one per pipeline.
type roundTrips struct{ n atomic.Int64 }

func (r *roundTrips) DialHook(next redis.DialHook) redis.DialHook { return next }

func (r *roundTrips) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		r.n.Add(1)
		return next(ctx, cmd)
	}
}

func (r *roundTrips) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		r.n.Add(1)
		return next(ctx, cmds)
	}
}

// quiet keeps Asynq's logs out of the test output.
type quiet struct{}

func (quiet) Debug(...any) {}
func (quiet) Info(...any)  {}
func (quiet) Warn(...any)  {}
func (quiet) Error(...any) {}
func (quiet) Fatal(...any) {}
