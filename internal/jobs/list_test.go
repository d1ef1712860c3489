package jobs

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hibiken/asynq"

	"ragd"
)

// An index entry whose job is gone (finished past the retention, or never
// enqueued) is dropped; one younger than indexGrace is a job being
// enqueued, counted as queued.
func TestListDropsVanishedJobs(t *testing.T) {
	t.Parallel()
	q := testQueue(t)
	ctx := t.Context()
	live := enqueueDoc(t, q, "docs", "")
	old, _ := json.Marshal(indexMeta{Namespace: "docs", CreatedAt: time.Now().Add(-2 * q.opts.Retention)})
	young, _ := json.Marshal(indexMeta{Namespace: "docs", CreatedAt: time.Now()})
	if err := q.index(ctx, TypeIngestDocument, "gone", old); err != nil {
		t.Fatal(err)
	}
	if err := q.index(ctx, TypeIngestDocument, "enqueueing", young); err != nil {
		t.Fatal(err)
	}
	jobs, total, err := q.List(ctx, ListQuery{Limit: 10})
	if err != nil || total != 2 || len(jobs) != 1 || jobs[0].ID != live {
		t.Fatalf("list: %v, total %d, %v", jobs, total, err)
	}
	if _, total, _ := q.List(ctx, ListQuery{Limit: 10, Status: ragd.JobQueued}); total != 2 {
		t.Errorf("queued: %d, want the live job and the one being enqueued", total)
	}
	if ids, _ := q.rdb.ZRange(ctx, q.keys.Index("docs"), 0, -1).Result(); len(ids) != 2 {
		t.Errorf("index after the listing: %v", ids)
	}
}

// Jobs enqueued before ragd indexed them (by an older version) are listed
// too: the first listing indexes the queue's tasks from the inspector.
func TestListBackfillsOlderJobs(t *testing.T) {
	t.Parallel()
	q := testQueue(t)
	ctx := t.Context()
	older := func(typ, id string, payload any) {
		body, _ := json.Marshal(payload)
		if _, err := q.client.EnqueueContext(ctx, asynq.NewTask(typ, body), asynq.TaskID(id), asynq.Queue(q.Name())); err != nil {
			t.Fatal(err)
		}
	}
	created := time.Now().UTC()
	older(TypeIngestDocument, "doc", DocumentPayload{Namespace: "old", CreatedAt: created})
	older(TypeIngestDirectory, "dir", DirectoryPayload{Namespace: "old", CreatedAt: created.Add(time.Second)})
	older(TypeIngestDocument, "dir.0", DocumentPayload{Namespace: "old", ParentID: "dir", CreatedAt: created})
	jobs, total, err := q.List(ctx, ListQuery{Limit: 10})
	if err != nil || total != 2 || jobs[0].ID != "dir" || jobs[1].ID != "doc" {
		t.Fatalf("list: %+v, total %d, %v", jobs, total, err)
	}
	if isDir, _ := q.rdb.SIsMember(ctx, q.keys.Directories(), "dir").Result(); !isDir {
		t.Error("the directory job is not indexed as one")
	}
}

// listJobsFixture is a queue of n queued document jobs over 10 namespaces.
func listJobsFixture(b *testing.B, n int) *Queue {
	q := testQueue(b)
	ctx := context.Background()
	const batch = 500
	for start := 0; start < n; start += batch {
		errs := make(chan error, batch)
		for i := start; i < min(start+batch, n); i++ {
			go func() {
				errs <- q.EnqueueDocument(ctx, NewJobID(), DocumentPayload{Namespace: fmt.Sprintf("ns%d", i%10), DocumentID: "d",
					Source: "text://d", Text: "a short text", CreatedAt: time.Now().UTC()})
			}()
		}
		for i := start; i < min(start+batch, n); i++ {
			if err := <-errs; err != nil {
				b.Fatal(err)
			}
		}
	}
	return q
}

// BenchmarkListJobs lists the first page of 10,000 jobs: all of them, one
// namespace's, and all with a status filter, against the floor of listing
// without ragd's index: every task read through the inspector and its
// payload decoded to learn its namespace and age.
func BenchmarkListJobs(b *testing.B) {
	const n = 10_000
	q := listJobsFixture(b, n)
	ctx := context.Background()
	inspectAll := func() {
		for page := 1; ; page++ {
			tasks, err := q.inspector.ListPendingTasks(q.Name(), asynq.PageSize(1000), asynq.Page(page))
			if err != nil {
				b.Fatal(err)
			}
			for _, t := range tasks {
				var m indexMeta
				_ = json.Unmarshal(t.Payload, &m)
			}
			if len(tasks) < 1000 {
				return
			}
		}
	}
	list := func(lq ListQuery) func() {
		return func() {
			if _, total, err := q.List(ctx, lq); err != nil || total == 0 {
				b.Fatal(total, err)
			}
		}
	}
	cases := []struct {
		name string
		run  func()
	}{
		{"all", list(ListQuery{Limit: 100})},
		{"namespace", list(ListQuery{Namespaces: []string{"ns3"}, Limit: 100})},
		{"status", list(ListQuery{Status: ragd.JobQueued, Limit: 100})},
	}
	var floor time.Duration
	took := make([]time.Duration, len(cases))
	rounds := 0
	for b.Loop() {
		floor += timed(inspectAll)
		for i, c := range cases {
			took[i] += timed(c.run)
		}
		rounds++
	}
	b.ReportMetric(float64(floor.Microseconds())/float64(rounds)/1000, "inspector-ms")
	for i, c := range cases {
		ms := float64(took[i].Microseconds()) / float64(rounds) / 1000
		b.ReportMetric(ms, c.name+"-ms")
		b.Logf("%s: %.1f ms per listing of %d jobs, %.2f× the inspector's %.1f ms", c.name, ms, n,
			float64(took[i])/float64(floor), float64(floor.Microseconds())/float64(rounds)/1000)
	}
}

func timed(f func()) time.Duration {
	start := time.Now()
	f()
	return time.Since(start)
}

// A directory job whose own task completed is listed by its files' status:
// active while one runs, so a filter finds it among the active jobs.
func TestListFiltersDirectoriesByTheirFiles(t *testing.T) {
	t.Parallel()
	d := startDirectory(t, 40, 30, 5)
	ctx := t.Context()
	for status, want := range map[ragd.JobStatus]int{ragd.JobActive: 1, ragd.JobCompleted: 0} {
		jobs, total, err := d.queue.List(ctx, ListQuery{Status: status, Limit: 10})
		if err != nil || total != want || len(jobs) != want {
			t.Fatalf("%s: %+v, total %d, %v", status, jobs, total, err)
		}
		if want == 1 && (jobs[0].ID != d.parentID || jobs[0].Children != nil || jobs[0].Progress.Total != 40) {
			t.Errorf("listed directory: %+v", jobs[0])
		}
	}
	if n, _ := d.queue.rdb.HLen(ctx, d.queue.keys.Settled()).Result(); n != 0 {
		t.Errorf("a running directory was kept as settled")
	}
}

// Once every file of a directory has ended, its status is kept, so later
// filtered listings do not read its files again.
func TestListKeepsSettledDirectories(t *testing.T) {
	t.Parallel()
	d := startDirectory(t, 1, 1, 0) // its one file fails for good
	ctx := t.Context()
	for range 2 {
		jobs, total, err := d.queue.List(ctx, ListQuery{Status: ragd.JobFailed, Limit: 10})
		if err != nil || total != 1 || jobs[0].ID != d.parentID {
			t.Fatalf("failed: %+v, total %d, %v", jobs, total, err)
		}
		var kept ragd.Job
		s, _ := d.queue.rdb.HGet(ctx, d.queue.keys.Settled(), d.parentID).Result()
		listed, _ := json.Marshal(jobs[0])
		if json.Unmarshal([]byte(s), &kept) != nil || kept.Status != ragd.JobCompleted || kept.Progress.Done != 1 || s != string(listed) {
			t.Fatalf("settled %q, listed %+v", s, jobs[0])
		}
	}
}

// Entries of jobs past their retention leave the index as jobs are
// enqueued, though nobody lists the namespace; entries of jobs still kept
// stay.
func TestIndexPrunedAsJobsAreEnqueued(t *testing.T) {
	t.Parallel()
	q := testQueue(t)
	ctx := t.Context()
	kept := enqueueDoc(t, q, "docs", "")
	for i := range 2 * pruneBatch {
		old, _ := json.Marshal(indexMeta{Namespace: "docs", CreatedAt: time.Now().Add(-2*q.opts.Retention - time.Duration(i)*time.Second)})
		if err := q.index(ctx, TypeIngestDocument, fmt.Sprint("expired-", i), old); err != nil {
			t.Fatal(err)
		}
	}
	for range 2 * pruneEvery {
		enqueueDoc(t, q, "docs", "")
	}
	n, err := q.rdb.ZCard(ctx, q.keys.Index("docs")).Result()
	if err != nil || n != 1+2*pruneEvery {
		t.Fatalf("index holds %d entries (%v), want the %d jobs kept", n, err, 1+2*pruneEvery)
	}
	if _, err := q.rdb.ZScore(ctx, q.keys.Index("docs"), kept).Result(); err != nil {
		t.Fatalf("a kept job left the index: %v", err)
	}
}

// Jobs created within one millisecond are listed newest first, not by id.
func TestListOrdersJobsOfOneMillisecond(t *testing.T) {
	t.Parallel()
	q := testQueue(t)
	ctx := t.Context()
	ms := time.Now().UTC().Truncate(time.Millisecond)
	for i, id := range []string{"b-first", "c-second", "a-third"} {
		pl := DocumentPayload{Namespace: "tied", Source: "text://" + id, CreatedAt: ms.Add(time.Duration(100*(i+1)) * time.Microsecond)}
		if err := q.EnqueueDocument(ctx, id, pl); err != nil {
			t.Fatal(err)
		}
	}
	jobs, _, err := q.List(ctx, ListQuery{Namespaces: []string{"tied"}, Limit: 10})
	if err != nil || len(jobs) != 3 || jobs[0].ID != "a-third" || jobs[1].ID != "c-second" || jobs[2].ID != "b-first" {
		t.Fatalf("list: %v %v", jobs, err)
	}
}

// A listing, the counts and a job read by id keep the jobs the context's
// audience may see (ragd.WithAudience, applied by the queue itself): an
// operator's jobs only operators, a group's those holding every group of
// its asker; a job's file jobs follow their directory.
func TestListKeepsWhatTheAudienceSees(t *testing.T) {
	t.Parallel()
	q := testQueue(t)
	ctx := t.Context()
	ids := map[string]string{}
	for name, viewer := range map[string]*[]string{"ops": nil, "eng": {"eng"}, "fin": {"fin"}, "both": {"eng", "fin"}, "none": {}} {
		id := NewJobID()
		err := q.EnqueueDocument(ctx, id, DocumentPayload{Namespace: "docs", DocumentID: "doc-" + id, Source: "text://" + id,
			Text: "some text", Viewer: viewer, CreatedAt: time.Now().UTC()})
		if err != nil {
			t.Fatal(err)
		}
		ids[id] = name
	}
	for aud, want := range map[string][]string{
		"*":       {"both", "eng", "fin", "none", "ops"},
		"eng":     {"eng", "none"},
		"eng,fin": {"both", "eng", "fin", "none"},
		"":        {"none"},
	} {
		a := ragd.GroupAudience(strings.Split(aud, ","))
		if aud == "" {
			a = ragd.GroupAudience(nil)
		}
		jobs, total, err := q.List(ragd.WithAudience(ctx, a), ListQuery{Limit: 10})
		var got []string
		for _, j := range jobs {
			got = append(got, ids[j.ID])
		}
		slices.Sort(got)
		if err != nil || total != len(want) || !slices.Equal(got, want) {
			t.Errorf("audience %q: %v (total %d, %v), want %v", aud, got, total, err, want)
		}
		if st, err := q.Stats(ragd.WithAudience(ctx, a), nil); err != nil || st.Pending != len(want) {
			t.Errorf("audience %q counts %+v (%v), want %d pending", aud, st, err, len(want))
		}
		for id, name := range ids { // one job, read by id, follows the same rule
			job, err := q.Job(ragd.WithAudience(ctx, a), id)
			if sees := slices.Contains(want, name); sees != (err == nil && job != nil) ||
				!sees && (ragd.KindOf(err) != ragd.KindNotFound || err.Error() != q.NotFound(id).Error()) {
				t.Errorf("audience %q reading job %s: %v, %v (sees: %v)", aud, name, job, err, sees)
			}
		}
	}
	for id, name := range ids {
		key, err := q.Viewer(ctx, id+".0") // a file job of it, were it a directory
		if err != nil || ragd.GroupAudience([]string{"eng"}).SeesJobsOf(key) != (name == "eng" || name == "none") {
			t.Errorf("viewer of %s's file job: %q, %v", name, key, err)
		}
	}
}

// A directory whose files ended, one failed for good, reads completed but
// is what status=failed finds (and the failed count counts): the archived
// task the Asynq web UI shows is its file's. Before, status=failed listed
// nothing while Asynq held that archived task.
func TestListFailedFindsDirectoriesWithFailedFiles(t *testing.T) {
	t.Parallel()
	d := startDirectory(t, 1, 1, 0) // its one file fails for good
	ctx := t.Context()
	archived, err := d.queue.inspector.ListArchivedTasks(d.queue.Name())
	if err != nil || len(archived) != 1 || archived[0].ID != childID(d.parentID, 0) {
		t.Fatalf("archived tasks: %+v, %v", archived, err)
	}
	all := ListQuery{Limit: 10}
	jobs, total, err := d.queue.List(ctx, all)
	if err != nil || total != 1 || jobs[0].Status != ragd.JobCompleted {
		t.Fatalf("every job: %+v, total %d, %v", jobs, total, err)
	}
	var res ragd.DirectoryResult
	if json.Unmarshal(jobs[0].Result, &res) != nil || res.FilesFailed != 1 {
		t.Fatalf("directory result: %s", jobs[0].Result)
	}
	for status, want := range map[ragd.JobStatus]int{ragd.JobFailed: 1, ragd.JobCompleted: 0} {
		q := all
		q.Status = status
		jobs, total, err := d.queue.List(ctx, q)
		if err != nil || total != want || len(jobs) != want || (want == 1 && jobs[0].ID != d.parentID) {
			t.Errorf("status=%s: %+v, total %d, %v", status, jobs, total, err)
		}
	}
	if st, err := d.queue.Stats(ctx, nil); err != nil || st.Failed != 1 {
		t.Errorf("stats: %+v, %v", st, err)
	}
}
