package worker_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/hibiken/asynq"

	"ragd"
	"ragd/internal/jobs"
	"ragd/internal/jobs/worker"
	"ragd/internal/testkit/gitserver"
	"ragd/internal/testkit/stack"
)

// A sync retried after some of its files were indexed enqueues only the
// others (their ids follow the path, as a directory sync's do).
func TestRetriedSyncSkipsFinishedFiles(t *testing.T) {
	t.Parallel()
	repo := gitserver.NewRepo(t, "retried")
	for _, n := range []string{"a", "b", "c"} {
		repo.Write(n+".md", "# "+n+"\n\nThe page "+n+".\n")
	}
	repo.Commit("three")
	url, _ := gitserver.Daemon(t, repo)
	cfg := stack.Config(t)
	cfg.Ingest.AllowPrivateURLs = true
	s := stack.Start(t, cfg, false)
	r := s.Do(t, "POST", "/sources", map[string]any{"kind": "git", "url": url})
	var src ragd.Source
	if err := json.Unmarshal(r.Body, &src); err != nil || r.Status != 201 {
		t.Fatalf("POST /sources: %d %s", r.Status, r.Body)
	}
	id := src.ID
	ctx := context.Background()
	parent := "sync-retried"
	done := worker.SyncChildJobID(parent, "a.md")
	pl := jobs.DocumentPayload{Namespace: "default", ParentID: parent, Source: ragd.GitURI(url, "", "a.md")}
	if err := s.Queue.FileDone(ctx, done, pl, ragd.Progress{Done: 1, Total: 1}, ragd.DocumentResult{ChunksIndexed: 1}); err != nil {
		t.Fatal(err)
	}
	dir := jobs.DirectoryPayload{Namespace: "default", DirectoryPath: url, SourceID: id, Sync: true, Prune: true, CreatedAt: time.Now()}
	res, err := s.Pipeline.SyncSource(ctx, parent, dir, jobs.NewReporter(asynq.NewTask(jobs.TypeIngestDirectory, nil)))
	if err != nil || res.FilesAdded != 3 {
		t.Fatalf("sync: %+v %v", res, err)
	}
	for _, p := range []string{"a.md", "b.md", "c.md"} {
		_, err := s.Queue.Inspector().GetTaskInfo(s.Queue.Name(), worker.SyncChildJobID(parent, p))
		if (p == "a.md") != (err != nil) {
			t.Fatalf("%s: enqueued %v, want %v", p, err == nil, p != "a.md")
		}
	}
	if n := s.Git.Reads.Load(); n != 2 {
		t.Fatalf("%d blobs read, want the 2 not finished", n)
	}
}
