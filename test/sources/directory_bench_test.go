package sources_test

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"ragd"
	"ragd/internal/library"
	"ragd/internal/testkit/stack"
)

// BenchmarkDirectorySourceVsDirectory indexes the same Markdown files
// (-files, 500 by default: dirBenchFiles) as rag_index_directory and as a
// directory source into fresh namespaces, alternating which goes first,
// and reports the source's rate as a fraction of the directory's
// (source/dir): they run the same plan and file jobs, so it should be
// near 1. It also reports the source's re-sync with nothing changed.
func BenchmarkDirectorySourceVsDirectory(b *testing.B) {
	root := b.TempDir()
	dir := filepath.Join(root, "corpus")
	for i := range dirBenchFiles {
		text := fmt.Sprintf("# Note %d\n\nThe harbour log entry %d records tide %d and the wind from bearing %d degrees.\n", i, i, i%13, (i*37)%360)
		p := filepath.Join(dir, fmt.Sprintf("d%02d", i%20), fmt.Sprintf("n%04d.md", i))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	s := stack.Start(b, stack.Config(b, root), true)
	var dirTime, srcTime, resync time.Duration
	for n := 0; b.Loop(); n++ {
		ns := func(kind string) string { return fmt.Sprintf("%s%d", kind, n) }
		runDir := func() {
			dirTime += timeJob(b, s, "/tools/rag_index_directory", map[string]any{"directory_path": dir, "sync": true, "kb_name": ns("dir")})
		}
		var id string
		runSrc := func() {
			r := s.Do(b, "POST", "/sources", map[string]any{"kind": "directory", "url": dir, "kb_name": ns("src")})
			var src ragd.Source
			decode(b, r.Body, &src)
			id = src.ID
			srcTime += timeJob(b, s, "/sources/"+id+"/sync", map[string]any{})
		}
		if n%2 == 0 {
			runDir()
			runSrc()
		} else {
			runSrc()
			runDir()
		}
		resync += timeJob(b, s, "/sources/"+id+"/sync", map[string]any{})
	}
	b.ReportMetric(dirTime.Seconds()/srcTime.Seconds(), "source/dir")
	b.ReportMetric(float64(dirBenchFiles)*float64(b.N)/srcTime.Seconds(), "source-files/s")
	b.ReportMetric(float64(resync.Milliseconds())/float64(b.N), "resync-ms")
}

// dirBenchFiles is how many files BenchmarkDirectorySourceVsDirectory indexes.
const dirBenchFiles = 500

// timeJob posts body to path, waits for the job it answers and returns
// how long that took; the job must complete.
func timeJob(b *testing.B, s *stack.Stack, path string, body map[string]any) time.Duration {
	b.Helper()
	start := time.Now()
	r := s.Do(b, "POST", path, body)
	if r.Status != http.StatusAccepted {
		b.Fatalf("POST %s: %d %s", path, r.Status, r.Body)
	}
	var e library.Enqueued
	decode(b, r.Body, &e)
	if job := s.WaitJob(b, *e.JobID, 5*time.Minute); job.Status != ragd.JobCompleted {
		b.Fatalf("%s: %s %s", path, job.Status, job.Error)
	}
	return time.Since(start)
}
