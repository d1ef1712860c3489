package worker_test

import (
	"context"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"ragd"
	"ragd/internal/jobs/syncplan"
	"ragd/internal/testkit/stack"
)

// BenchmarkSyncUnchanged syncs an unchanged directory of 1,000 files
// (target: under 2 s, no file read beyond stat). Each round times, in
// turn, the floor — walking the tree and stat'ing every file, the least a
// sync must do — the sync plan alone, and a whole sync job through REST
// and the worker.
func BenchmarkSyncUnchanged(b *testing.B) {
	root := b.TempDir()
	dir := filepath.Join(root, "many")
	for i := range 1000 {
		p := filepath.Join(dir, fmt.Sprintf("d%02d", i/100), fmt.Sprintf("note-%04d.md", i))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			b.Fatal(err)
		}
		text := fmt.Sprintf("# Note %d\n\nLedger entry %d records the harbour tolls of week %d.", i, i, i%52)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	cfg := stack.Config(b, root)
	cfg.Worker.Concurrency = 4
	s := stack.Start(b, cfg, true)
	syncJob := func() ragd.DirectoryResult {
		resp := s.Do(b, http.MethodPost, "/tools/rag_index_directory", map[string]any{"directory_path": dir, "kb_name": "bench", "sync": true, "wait": true})
		if resp.Status != http.StatusOK {
			b.Fatalf("sync: %d %s", resp.Status, resp.Body)
		}
		return ragd.DirectoryResult{FilesUnchanged: int(resp.JSON["files_unchanged"].(float64)), FilesTotal: int(resp.JSON["files_total"].(float64))}
	}
	syncJob() // index them all once
	floor := func() {
		_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				_, _ = os.Stat(p)
			}
			return nil
		})
	}
	plan := func() {
		p, err := syncplan.Make(context.Background(), s.Library.Registry, s.Library.Roots,
			syncplan.Scope{Namespace: "bench", Dir: dir, Recursive: true, Prune: true, MaxFiles: 10000})
		if err != nil || p.Unchanged != 1000 {
			b.Fatalf("plan: %d unchanged, %v", p.Unchanged, err)
		}
	}
	var floors, plans, jobs []time.Duration
	b.ResetTimer()
	for range b.N {
		floors = append(floors, timed(floor))
		plans = append(plans, timed(plan))
		jobs = append(jobs, timed(func() {
			if r := syncJob(); r.FilesUnchanged != 1000 {
				b.Fatalf("sync job: %+v", r)
			}
		}))
	}
	b.StopTimer()
	med := func(d []time.Duration) time.Duration { d = slices.Clone(d); slices.Sort(d); return d[len(d)/2] }
	b.ReportMetric(med(jobs).Seconds(), "sync_s")
	fmt.Printf("sync of an unchanged 1,000-file directory, %d rounds (median): floor walk+stat %s, plan %s (%.1f× floor), whole sync job %s (target < 2 s); job range %s–%s\n",
		b.N, med(floors).Round(time.Microsecond), med(plans).Round(time.Microsecond), float64(med(plans))/float64(med(floors)),
		med(jobs).Round(time.Millisecond), slices.Min(jobs).Round(time.Millisecond), slices.Max(jobs).Round(time.Millisecond))
}
