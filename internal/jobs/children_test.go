package jobs

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/hibiken/asynq"
	"github.com/redis/go-redis/v9"

	"ragd"
)

// A directory of 1,200 files in every state is aggregated right, in a
// number of Redis round trips that grows by one per childBatch children
// (the inspector took two per child: 2,402 here).
func TestDirectoryJobWithManyChildren(t *testing.T) {
	t.Parallel()
	d := startDirectory(t, 1200, 1100, 50)
	q, trips := d.reader(t)
	job, err := q.Job(t.Context(), d.parentID)
	if err != nil {
		t.Fatal(err)
	}
	// Read again once connected and with Asynq's script loaded: the
	// parent's task info then costs SISMEMBER and EVALSHA, the children
	// one pipeline per batch.
	trips.n.Store(0)
	again, err := q.Job(t.Context(), d.parentID)
	if err != nil || !reflect.DeepEqual(again, job) {
		t.Fatalf("read again: %v, or a different answer", err)
	}
	batches := (d.total + childBatch - 1) / childBatch
	if n := int(trips.n.Load()); n > 2+batches {
		t.Errorf("%d round trips for %d children, want at most %d", n, d.total, 2+batches)
	} else {
		t.Logf("%d round trips for %d children", n, d.total)
	}

	wantStatus := map[outcome]ragd.JobStatus{indexed: ragd.JobCompleted, failed: ragd.JobFailed, retrying: ragd.JobRetry,
		running: ragd.JobActive, queued: ragd.JobQueued, expired: ragd.JobCompleted}
	wantError := map[outcome]string{failed: "unreadable file", retrying: "embedder timed out"}
	want := ragd.DirectoryResult{DirectoryPath: "/docs", FilesTotal: d.total}
	seen := map[outcome]int{}
	if len(job.Children) != d.total {
		t.Fatalf("%d children, want %d", len(job.Children), d.total)
	}
	for i, c := range job.Children {
		o := d.outcome(i)
		seen[o]++
		chunks := 0
		switch o {
		case indexed:
			chunks = chunksOf(i)
			want.FilesIndexed++
			want.ChunksIndexed += chunks
		case expired:
			want.FilesIndexed++
		case failed:
			want.FilesFailed++
		}
		if c != (ragd.ChildJob{ID: childID(d.parentID, i), FilePath: childPath(i), Status: wantStatus[o], Chunks: chunks, Error: wantError[o]}) {
			t.Fatalf("child %d (outcome %d): %+v", i, o, c)
		}
	}
	if len(seen) != len(wantStatus) {
		t.Fatalf("outcomes covered: %v", seen)
	}

	var got ragd.DirectoryResult
	if err := json.Unmarshal(job.Result, &got); err != nil || got != want {
		t.Errorf("result %s, want %+v", job.Result, want)
	}
	done := want.FilesIndexed + want.FilesFailed
	if job.Progress != (ragd.Progress{Done: done, Total: d.total, Unit: "files"}) {
		t.Errorf("progress %+v, want %d of %d files", job.Progress, done, d.total)
	}
	// The parent task has completed, but its files have not all.
	if job.Status != ragd.JobActive || job.CompletedAt != nil || job.Namespace != "docs" {
		t.Errorf("parent: status %s, completed at %v, kb_name %q", job.Status, job.CompletedAt, job.Namespace)
	}
}

// Reading task records directly gives what the inspector gives, in every
// state a child can be in.
func TestChildrenMatchInspector(t *testing.T) {
	t.Parallel()
	d := startDirectory(t, 40, 30, 5)
	children := make([]childRef, d.total)
	for i := range children {
		children[i] = childRef{ID: childID(d.parentID, i), FilePath: childPath(i)}
	}
	states := d.queue.childStates(t.Context(), children)
	for i, c := range children {
		info, err := d.queue.inspector.GetTaskInfo(d.queue.Name(), c.ID)
		got := states[i]
		if errors.Is(err, asynq.ErrTaskNotFound) {
			if !errors.Is(got.err, asynq.ErrTaskNotFound) {
				t.Errorf("child %d: inspector finds none, direct read %+v, %v", i, got.info, got.err)
			}
			continue
		}
		if err != nil || got.err != nil {
			t.Fatalf("child %d: inspector %v, direct read %v", i, err, got.err)
		}
		if want := relevant(info); !reflect.DeepEqual(relevant(got.info), want) {
			t.Errorf("child %d (outcome %d):\n got %+v\nwant %+v", i, d.outcome(i), relevant(got.info), want)
		}
	}
}

// relevant keeps the TaskInfo fields that the direct read decodes.
func relevant(i *asynq.TaskInfo) asynq.TaskInfo {
	return asynq.TaskInfo{ID: i.ID, Queue: i.Queue, Type: i.Type, Payload: i.Payload, State: i.State, Retried: i.Retried,
		LastErr: i.LastErr, LastFailedAt: i.LastFailedAt, CompletedAt: i.CompletedAt, Result: i.Result}
}

// Children whose records cannot be read are reported active with the
// reason, as before, rather than failing the parent's status.
func TestUnreadableChildrenAreStateUnknown(t *testing.T) {
	rdb := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1"})
	_ = rdb.Close() // every command fails at once
	q := NewQueue(rdb, Options{Queue: "q"})
	job := &ragd.Job{Status: ragd.JobCompleted}
	q.aggregateChildren(context.Background(), job, &report{Children: []childRef{{ID: "p.0", FilePath: "/a"}, {ID: "p.1", FilePath: "/b"}}})
	for _, c := range job.Children {
		if c.Status != ragd.JobActive || !strings.HasPrefix(c.Error, "state unknown: ") {
			t.Errorf("child %+v", c)
		}
	}
	if len(job.Children) != 2 || job.Status != ragd.JobActive || job.Progress.Done != 0 {
		t.Errorf("job %+v", job)
	}
}

// BenchmarkDirectoryJobStatus reads the status of a 1,200-file directory.
func BenchmarkDirectoryJobStatus(b *testing.B) {
	d := startDirectory(b, 1200, 1100, 50)
	ctx := context.Background()
	for b.Loop() {
		if _, err := d.queue.Job(ctx, d.parentID); err != nil {
			b.Fatal(err)
		}
	}
}

// A completed file job leaves its outcome under its directory and no
// Asynq task: read alone it answers as a completed document job (its
// document id derived from its source), a cancel of it is refused as of
// a completed job, and its directory's outcomes expire with the retention.
func TestCompletedFileJobLeavesOnlyItsOutcome(t *testing.T) {
	t.Parallel()
	d := startDirectory(t, 12, 12, 0)
	ctx := t.Context()
	const i = 3 // indexed
	id := childID(d.parentID, i)
	if n, err := d.queue.rdb.Exists(ctx, d.queue.keys.Task(id), d.queue.keys.Control(id)).Result(); err != nil || n != 0 {
		t.Fatalf("a completed file job kept %d of its task and control record (%v)", n, err)
	}
	job, err := d.queue.Job(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	var res ragd.DocumentResult
	source := "file://" + childPath(i)
	if job.Status != ragd.JobCompleted || job.Type != TypeIngestDocument || job.Namespace != "docs" || job.CompletedAt == nil ||
		job.CreatedAt.IsZero() || json.Unmarshal(job.Result, &res) != nil || res.Source != source ||
		res.DocumentID != ragd.DocumentID("docs", source) || res.ChunksIndexed != chunksOf(i) ||
		job.Progress != (ragd.Progress{Done: chunksOf(i), Total: chunksOf(i), Unit: "chunks"}) {
		t.Fatalf("file job read from its outcome: %+v, result %s", job, job.Result)
	}
	if err := d.queue.Cancel(ctx, job); ragd.KindOf(err) != ragd.KindConflict {
		t.Fatalf("cancel of a completed file job: %v, want a conflict", err)
	}
	// Marked directly, as a directory's cancel marks its files: refused too.
	states, err := d.queue.mark(ctx, []ragd.Job{{ID: id}}, true, false)
	if err != nil || states[0] != "completed" {
		t.Fatalf("mark of a completed file job: %v, %v", states, err)
	}
	ttl, err := d.queue.rdb.PTTL(ctx, d.queue.keys.Files(d.parentID)).Result()
	if err != nil || ttl <= 0 || ttl > d.queue.opts.Retention {
		t.Fatalf("outcomes expire in %v (%v), want within the retention %v", ttl, err, d.queue.opts.Retention)
	}
}

// A directory's record lasts until the retention after its last file
// completed, not after its own fan-out: a file completing later moves
// the directory's expiry in Asynq's completed set on.
func TestDirectoryRecordOutlivesItsFanOut(t *testing.T) {
	t.Parallel()
	d := startDirectory(t, 12, 12, 0)
	ctx := t.Context()
	key := d.queue.keys.Completed()
	before, err := d.queue.rdb.ZScore(ctx, key, d.parentID).Result()
	if err != nil {
		t.Fatalf("directory not in the completed set: %v", err)
	}
	// Its expiry as if it had fanned out long ago.
	if err := d.queue.rdb.ZAdd(ctx, key, redis.Z{Score: before - 3600, Member: d.parentID}).Err(); err != nil {
		t.Fatal(err)
	}
	pl := DocumentPayload{Namespace: "docs", ParentID: d.parentID, CreatedAt: time.Now()}
	if err := d.queue.FileDone(ctx, childID(d.parentID, 3), pl, ragd.Progress{}, ragd.DocumentResult{Source: "file:///docs/x.md"}); err != nil {
		t.Fatal(err)
	}
	after, _ := d.queue.rdb.ZScore(ctx, key, d.parentID).Result()
	want := float64(time.Now().Add(d.queue.opts.Retention).Unix())
	if after < want-5 {
		t.Fatalf("directory expires at %v after a file completed, want about %v (now + retention)", after, want)
	}
	// A file of a job Asynq does not hold as completed adds nothing.
	other := NewJobID()
	if err := d.queue.FileDone(ctx, childID(other, 0), DocumentPayload{Namespace: "docs", ParentID: other}, ragd.Progress{}, ragd.DocumentResult{}); err != nil {
		t.Fatal(err)
	}
	if _, err := d.queue.rdb.ZScore(ctx, key, other).Result(); err != redis.Nil {
		t.Fatalf("a directory unknown to Asynq entered its completed set: %v", err)
	}
}
