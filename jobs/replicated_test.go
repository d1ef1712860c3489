package jobs

import (
	"context"
	"testing"
	"time"
)

// With wait_replicas set and no replica connected (the test Redis has
// none), a job a caller asked for waits the timeout and is accepted with
// the warning hook called; a directory's child does not wait at all.
func TestReplicatedWaitsForTopLevelJobsOnly(t *testing.T) {
	q := testQueue(t)
	type call struct {
		id    string
		acked int64
	}
	var calls []call
	q.opts.WaitReplicas, q.opts.WaitTimeout = 1, 100*time.Millisecond
	q.opts.Unreplicated = func(id string, acked int64) { calls = append(calls, call{id, acked}) }
	ctx := context.Background()

	top := DocumentPayload{Namespace: "ns", Source: "text://a", Text: "a", CreatedAt: time.Now()}
	if err := q.EnqueueDocument(ctx, "top", top); err != nil {
		t.Fatal(err)
	}
	child := top
	child.ParentID = "dir"
	if err := q.EnqueueDocument(ctx, "child", child); err != nil {
		t.Fatal(err)
	}
	if len(calls) != 1 || calls[0] != (call{"top", 0}) {
		t.Fatalf("unreplicated calls %+v, want one for the top-level job with 0 replicas", calls)
	}
	if n, err := q.rdb.Get(ctx, q.keys.Replicated()).Int(); err != nil || n != 1 {
		t.Fatalf("barrier key = %d, %v; want 1 (written once, for the top-level job)", n, err)
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
