package worker_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"ragd"
	"ragd/internal/ingest"
	"ragd/internal/jobs"
	"ragd/internal/testkit/stack"
)

// A file the API accepted but that became a named pipe before the job ran
// fails the job by type at once; the worker never blocks opening it.
func TestJobOnFIFOFailsByType(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	s := stack.Start(t, stack.Config(t, root), false)
	fifo := filepath.Join(root, "notes.txt")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	pl := jobs.DocumentPayload{Namespace: "default", FilePath: fifo, Source: "file://" + fifo,
		DocumentID: ragd.DocumentID("default", "file://"+fifo), CreatedAt: time.Now()}
	done := make(chan error, 1)
	go func() {
		_, err := s.Pipeline.IndexDocument(context.Background(), pl, nil)
		done <- err
	}()
	select {
	case err := <-done:
		if !ingest.IsPermanent(err) || !strings.Contains(err.Error(), "named pipe (FIFO)") {
			t.Fatalf("job on a FIFO: %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the job blocked opening a FIFO")
	}
	_ = os.Remove(fifo)
}
