package sources_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"ragd"
	"ragd/internal/catalog/lease"
	"ragd/internal/library/sourcesvc"
	"ragd/internal/platform/keyspace"
	"ragd/internal/testkit/stack"
)

// Two replicas on one Redis each run a scheduler: a source whose runs were
// missed for three hours is synced once, by the replica holding the lease,
// and not again while that sync is still queued; when that replica stops,
// the other takes over.
func TestScheduleFiresOnceAcrossTwoReplicas(t *testing.T) {
	t.Parallel()
	cfg := stack.Config(t)
	one, two := stack.Start(t, cfg, false), stack.Start(t, cfg, false)
	id := addSource(t, one, map[string]any{"url": "https://example.org/handbook.git", "every": "1h"})
	now := time.Now()
	missed := now.Add(-3 * time.Hour)
	if _, err := one.Sources.Store.Update(context.Background(), id, func(s *ragd.Source) error {
		s.NextSync = &missed
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	key := keyspace.New(cfg.Redis.KeyPrefix).SourceScheduler()
	scheduler := func(s *stack.Stack) *sourcesvc.Scheduler {
		return &sourcesvc.Scheduler{Sources: s.Sources, Lease: lease.New(s.Redis, key, time.Minute), Tick: time.Second, Log: stack.Logger(t)}
	}
	first, second := scheduler(one), scheduler(two)
	ctx := context.Background()
	for i, sc := range []*sourcesvc.Scheduler{first, second, first, second} {
		n, err := sc.Step(ctx, now)
		if err != nil {
			t.Fatal(err)
		}
		if want := map[bool]int{true: 1, false: 0}[i == 0]; n != want {
			t.Fatalf("step %d started %d syncs, want %d", i, n, want)
		}
	}
	src, err := one.Sources.Get(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if src.NextSync == nil || !src.NextSync.After(now) || src.LastSync == nil || !strings.HasPrefix(src.LastSync.JobID, "sched-"+id) {
		t.Fatalf("after the scheduled sync: next %v, last %+v", src.NextSync, src.LastSync)
	}
	// Due again two hours on, the first sync still queued (no worker):
	// not started a second time.
	if _, err := first.Step(ctx, now.Add(2*time.Hour)); err != nil {
		t.Fatal(err)
	}
	if n := jobCount(t, one); n != 1 {
		t.Fatalf("%d sync jobs, want 1", n)
	}
	// The first replica stops: its lease is released and the second
	// schedules.
	if err := first.Lease.Release(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := second.Step(ctx, now); err != nil {
		t.Fatal(err)
	}
	if owner, _ := two.Redis.Get(ctx, key).Result(); owner != second.Lease.Owner() {
		t.Fatalf("lease held by %q after the first replica stopped, want the second", owner)
	}
}

func jobCount(t *testing.T, s *stack.Stack) int {
	t.Helper()
	r := s.Do(t, "GET", "/jobs?kb_name=default", nil)
	var list struct {
		Total int `json:"total"`
	}
	decode(t, r.Body, &list)
	return list.Total
}
