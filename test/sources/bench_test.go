package sources_test

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"ragd"
	"ragd/internal/testkit/gitserver"
	"ragd/internal/testkit/stack"
)

// BenchmarkGitSyncVsDirectory indexes the same Markdown files (2,000, or
// RAGD_BENCH_GIT_FILES) once as a directory on the server's disk and once
// as a git source served over smart HTTP, each into a namespace of its
// own, and reports the git sync's rate as a share of the directory's
// (the target: at least 0.8), then commits a change to one file
// and re-syncs, which must read one blob.
func BenchmarkGitSyncVsDirectory(b *testing.B) {
	n := 2000
	if v, err := strconv.Atoi(os.Getenv("RAGD_BENCH_GIT_FILES")); err == nil && v > 0 {
		n = v
	}
	repo := gitserver.NewRepo(b, "bench.git")
	for i := range n {
		repo.Write(fmt.Sprintf("d%02d/note-%04d.md", i/100, i), fmt.Sprintf("# Note %d\n\nLedger entry %d records the harbour tolls of week %d and the ships that paid them.\n", i, i, i%52))
	}
	repo.Commit("notes")
	url := gitserver.HTTP(b, repo)
	cfg := stack.Config(b, repo.Root)
	cfg.Ingest.AllowPrivateURLs = true
	cfg.Worker.Concurrency = 4
	cfg.Sources.GitMaxFiles = n
	s := stack.Start(b, cfg, true)
	wait := func(r stack.Response) ragd.Job {
		var e struct {
			JobID string `json:"job_id"`
		}
		decode(b, r.Body, &e)
		return s.WaitJob(b, e.JobID, 30*time.Minute)
	}
	for round := range b.N {
		dirStart := time.Now()
		job := wait(s.Do(b, http.MethodPost, "/tools/rag_index_directory", map[string]any{
			"directory_path": filepath.Join(repo.Dir()), "kb_name": fmt.Sprintf("dir%d", round)}))
		dirTime := time.Since(dirStart)
		if job.Status != ragd.JobCompleted {
			b.Fatalf("directory: %s %s", job.Status, job.Error)
		}
		r := s.Do(b, http.MethodPost, "/sources", map[string]any{"kind": "git", "url": url, "kb_name": fmt.Sprintf("git%d", round)})
		var src ragd.Source
		decode(b, r.Body, &src)
		gitStart := time.Now()
		job = wait(s.Do(b, http.MethodPost, "/sources/"+src.ID+"/sync", nil))
		gitTime := time.Since(gitStart)
		if job.Status != ragd.JobCompleted || job.Progress.Total != n {
			b.Fatalf("git: %s %s %+v", job.Status, job.Error, job.Progress)
		}
		repo.Write("d00/note-0000.md", fmt.Sprintf("# Note 0\n\nChanged in round %d.\n", round))
		repo.Commit(fmt.Sprintf("one file, round %d", round))
		before := s.Git.Reads.Load()
		reStart := time.Now()
		job = wait(s.Do(b, http.MethodPost, "/sources/"+src.ID+"/sync", nil))
		reTime := time.Since(reStart)
		if read := s.Git.Reads.Load() - before; job.Status != ragd.JobCompleted || read != 1 {
			b.Fatalf("re-sync: %s %s, %d blobs read", job.Status, job.Error, read)
		}
		b.ReportMetric(dirTime.Seconds()/gitTime.Seconds(), "git/dir_rate")
		fmt.Printf("%d files: directory %s (%.0f files/s), git over smart HTTP %s (%.0f files/s, %.2f× the directory's rate); "+
			"re-sync after a one-file commit %s, 1 blob read\n", n, dirTime.Round(time.Millisecond), float64(n)/dirTime.Seconds(),
			gitTime.Round(time.Millisecond), float64(n)/gitTime.Seconds(), dirTime.Seconds()/gitTime.Seconds(), reTime.Round(time.Millisecond))
	}
}
