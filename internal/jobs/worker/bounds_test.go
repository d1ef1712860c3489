package worker_test

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"ragd"
	"ragd/internal/ingest"
	"ragd/internal/jobs"
	"ragd/internal/testkit/stack"
)

// A 50 MB text file of one-character lines (25 million of them) would make
// 65,000 chunks and, before ingest.max_document_chunks, cost 24 GB of
// allocations and 8 GB of memory on the way there. Its job fails, without
// retries, with a message naming the setting and the figures, and the heap
// stays within a few times the file's size while it does.
func TestOneCharacterLinesFailWithinBoundedMemory(t *testing.T) {
	root := t.TempDir()
	s := stack.StartService(t, stack.ServiceConfig(t, root), false)
	path := filepath.Join(root, "lines.txt")
	if err := os.WriteFile(path, []byte(strings.Repeat("a\n", 25_000_000)), 0o644); err != nil {
		t.Fatal(err)
	}
	pl := jobs.DocumentPayload{Namespace: "default", FilePath: path, Source: "file://" + path,
		DocumentID: ragd.DocumentID("default", "file://"+path), CreatedAt: time.Now()}
	runtime.GC()
	done := make(chan error, 1)
	go func() {
		_, err := s.Pipeline.IndexDocument(context.Background(), pl, nil)
		done <- err
	}()
	const maxHeap = 512 << 20
	var (
		ms   runtime.MemStats
		peak uint64
	)
	for tick := time.NewTicker(20 * time.Millisecond); ; {
		select {
		case err := <-done:
			tick.Stop()
			t.Logf("peak heap sampled: %d MiB", peak>>20)
			want := "more than ingest.max_document_chunks (20000)"
			if !ingest.IsPermanent(err) || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "lines.txt") {
				t.Fatalf("the job failed with %v, want a permanent error naming the file and %q", err, want)
			}
			return
		case <-tick.C:
			runtime.ReadMemStats(&ms)
			peak = max(peak, ms.HeapAlloc)
			if ms.HeapAlloc > maxHeap {
				t.Fatalf("the heap reached %d MiB (bound %d MiB) ingesting 50 MB of one-character lines", ms.HeapAlloc>>20, maxHeap>>20)
			}
		}
	}
}
