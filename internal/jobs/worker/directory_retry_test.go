package worker_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/hibiken/asynq"

	"ragd"
	"ragd/internal/jobs"
	"ragd/internal/jobs/worker"
	"ragd/internal/testkit/stack"
)

// A directory job retried after some of its files completed enqueues only
// the others: a completed file's task is not kept (retention 0), so Asynq
// would take a repeat and index the file a second time.
func TestRetriedDirectorySkipsCompletedFiles(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	s := stack.Start(t, stack.Config(t, root), false)
	for i := range 3 {
		text := fmt.Sprintf("# Ledger %d\n\nThe harbour ledger, page %d, lists ships by flag.\n", i, i)
		if err := os.WriteFile(filepath.Join(root, fmt.Sprintf("%d.md", i)), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ctx := context.Background()
	parent := "dir-retried"
	first := worker.ChildJobID(parent, 0)
	pl := jobs.DocumentPayload{Namespace: "default", ParentID: parent, FilePath: filepath.Join(root, "0.md")}
	if err := s.Queue.FileDone(ctx, first, pl, ragd.Progress{Done: 1, Total: 1}, ragd.DocumentResult{ChunksIndexed: 1}); err != nil {
		t.Fatal(err)
	}
	dir := jobs.DirectoryPayload{Namespace: "default", DirectoryPath: root, CreatedAt: time.Now()}
	if _, err := s.Pipeline.IndexDirectory(ctx, parent, dir, jobs.NewReporter(asynq.NewTask(jobs.TypeIngestDirectory, nil))); err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		_, err := s.Queue.Inspector().GetTaskInfo(s.Queue.Name(), worker.ChildJobID(parent, i))
		switch {
		case i == 0 && err == nil:
			t.Fatalf("the completed file's job %s was enqueued again", first)
		case i > 0 && err != nil:
			t.Fatalf("file job %d was not enqueued: %v", i, err)
		}
	}
}
