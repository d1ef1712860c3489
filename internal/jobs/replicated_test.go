package jobs

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/hibiken/asynq"

	"ragd"
)

// With wait_replicas set and no replica connected (the test Redis has
// none), a job a caller asked for waits the timeout and is refused: a 503
// with Retry-After saying a retry is safe, its task withdrawn and its held
// text released, so nothing of it runs. A directory's child does not wait.
// Before, the job was acknowledged with a warning, and a failover could
// lose it.
func TestReplicatedRefusesAJobNoReplicaHolds(t *testing.T) {
	q := testQueue(t)
	q.opts.WaitReplicas, q.opts.WaitTimeout = 1, 100*time.Millisecond
	called := 0
	q.opts.Unreplicated = func(string, int64) { called++ }
	ctx := context.Background()

	top := DocumentPayload{Namespace: "ns", Source: "text://a", Text: "a", CreatedAt: time.Now()}
	err := q.EnqueueDocument(ctx, "top", top)
	var re *ragd.Error
	if !errors.As(err, &re) || re.Kind != ragd.KindUnavailable || re.RetryAfterSeconds < 1 {
		t.Fatalf("enqueue with no replica: %v (%#v); want a 503 with Retry-After", err, re)
	}
	if msg := ragd.PublicMessage(err); !strings.Contains(msg, "not confirmed on a Redis replica") || !strings.Contains(msg, "retrying the same request is safe") {
		t.Errorf("message %q", msg)
	}
	if _, err := q.inspector.GetTaskInfo(q.Name(), "top"); !errors.Is(err, asynq.ErrTaskNotFound) {
		t.Errorf("refused job's task: %v; want it withdrawn", err)
	}
	if n := q.rdb.Exists(ctx, q.keys.Text("top")).Val(); n != 0 {
		t.Error("refused job's text still held")
	}
	if called != 0 {
		t.Errorf("Unreplicated called %d times for a refused job", called)
	}

	child := top
	child.ParentID = "dir"
	if err := q.EnqueueDocument(ctx, "child", child); err != nil {
		t.Fatalf("child: %v", err)
	}
	if n, err := q.rdb.Get(ctx, q.keys.Replicated()).Int(); err != nil || n != 1 {
		t.Fatalf("barrier key = %d, %v; want 1 (written once, for the top-level job)", n, err)
	}
}

// RiskJobLoss (redis.sentinel.risk_job_loss) restores the old answer: the
// job waits the timeout and is accepted, the warning hook called.
func TestReplicatedRiskJobLossAcknowledges(t *testing.T) {
	q := testQueue(t)
	type call struct {
		id    string
		acked int64
	}
	var calls []call
	q.opts.WaitReplicas, q.opts.WaitTimeout, q.opts.RiskJobLoss = 1, 100*time.Millisecond, true
	q.opts.Unreplicated = func(id string, acked int64) { calls = append(calls, call{id, acked}) }
	ctx := context.Background()

	top := DocumentPayload{Namespace: "ns", Source: "text://a", Text: "a", CreatedAt: time.Now()}
	if err := q.EnqueueDocument(ctx, "top", top); err != nil {
		t.Fatal(err)
	}
	if _, err := q.inspector.GetTaskInfo(q.Name(), "top"); err != nil {
		t.Errorf("acknowledged job's task: %v", err)
	}
	if len(calls) != 1 || calls[0] != (call{"top", 0}) {
		t.Fatalf("unreplicated calls %+v, want one for the job with 0 replicas", calls)
	}
}

// A refused job whose task a worker has begun cannot be withdrawn: it is
// left to run (it indexes the same document the client's retry does), so
// the error says so and its text stays held.
func TestUnconfirmedLeavesARunningJob(t *testing.T) {
	q := testQueue(t)
	ctx := context.Background()
	if err := q.EnqueueDocument(ctx, "top", DocumentPayload{Namespace: "ns", Source: "text://a", Text: "a", CreatedAt: time.Now()}); err != nil {
		t.Fatal(err)
	}
	// As a worker's dequeue leaves it (the state DeleteTask refuses).
	if err := q.rdb.HSet(ctx, "asynq:{"+q.Name()+"}:t:top", "state", "active").Err(); err != nil {
		t.Fatal(err)
	}
	err := q.unconfirmed("top", errors.New("0 of 1 replicas"))
	if ragd.KindOf(err) != ragd.KindUnavailable || !errors.Is(err, errLeftQueued) {
		t.Fatalf("unconfirmed running job: %v; want a 503 saying it was left queued", err)
	}
	if n := q.rdb.Exists(ctx, q.keys.Text("top")).Val(); n != 1 {
		t.Error("a job left to run lost its text")
	}
}

// Off (the plain redis.url case), nothing is written or waited for.
func TestReplicatedOff(t *testing.T) {
	q := testQueue(t)
	ctx := context.Background()
	if err := q.EnqueueDocument(ctx, "top", DocumentPayload{Namespace: "ns", Source: "text://a", Text: "a", CreatedAt: time.Now()}); err != nil {
		t.Fatal(err)
	}
	if n := q.rdb.Exists(ctx, q.keys.Replicated()).Val(); n != 0 {
		t.Fatalf("barrier key written with the wait off")
	}
}
