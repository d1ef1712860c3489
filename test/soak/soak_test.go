package soak

import (
	"context"
	"fmt"
	"os"
	"sync"
	"testing"
	"time"

	"ragd/internal/testkit/ragdproc"
)

// bounds are how much each judged series may grow after the warm-up, in
// runs of at least minRun: RSS climbs to its plateau for about 2 minutes
// at concurrency 8 (measured), so a shorter run's RSS is printed, not
// judged.
var bounds = []struct {
	name   string
	value  func(Sample) float64
	bound  Bound
	minRun time.Duration
}{
	{"goroutines", func(s Sample) float64 { return s.Goroutines }, Bound{Relative: 0.10, Slack: 10}, 0},
	{"RSS (MiB)", func(s Sample) float64 { return s.RSS / mib }, Bound{Relative: 0.05, Slack: 16}, 5 * time.Minute},
	{"open files", func(s Sample) float64 { return s.OpenFiles }, Bound{Relative: 0.10, Slack: 8}, 0},
}

// TestSoak is `make soak`: see the package doc. scripts/soak.sh starts the
// services and builds the binary; without RAGD_SOAK_BIN it is skipped.
func TestSoak(t *testing.T) {
	if os.Getenv("RAGD_SOAK_BIN") == "" {
		t.Skip("run by `make soak` (RAGD_SOAK_BIN names the ragd binary)")
	}
	s, err := LoadSettings()
	if err != nil {
		t.Fatal(err)
	}
	corpus, err := LoadCorpus()
	if err != nil {
		t.Fatal(err)
	}
	r, err := ragdproc.Start(s.Bin, s.Addr, t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Stop()
	fmt.Printf("soak: ragd pid %d on %s; %s at concurrency %d, warm-up %s, a sample every %s\n",
		r.Pid(), s.Addr, s.Duration, s.Concurrency, s.Warmup, s.Interval)

	rec := NewRecorder()
	c := NewClient(r.URL, s.Concurrency, rec)
	defer c.Close()
	ctx, cancel := context.WithTimeout(t.Context(), s.Duration)
	defer cancel()
	start := time.Now()
	var wg sync.WaitGroup
	for i := range s.Concurrency {
		wg.Go(func() { NewWorker(i, c, corpus).Run(ctx) })
	}
	samples, sampleErrs := sampleUntil(ctx, s, r, rec, start)
	wg.Wait()
	elapsed := time.Since(start)

	ops, errs, failures := rec.Summary()
	PrintSummary(os.Stdout, ops, errs, failures, elapsed)
	verdict(t, s.Duration, samples, errs, sampleErrs, r)
}

// sampleUntil takes a sample every s.Interval until ctx ends, printing
// each row as it comes; a sample that cannot be taken is an error.
func sampleUntil(ctx context.Context, s Settings, r *ragdproc.Process, rec *Recorder, start time.Time) ([]Sample, []string) {
	PrintHeader(os.Stdout)
	tick := time.NewTicker(s.Interval)
	defer tick.Stop()
	var samples []Sample
	var errs []string
	last := start
	for {
		select {
		case <-ctx.Done():
			return samples, errs
		case <-r.Exited():
			return samples, append(errs, "ragd exited during the soak; last lines of its log:\n"+r.LogTail(30))
		case now := <-tick.C:
			sc, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			smp, err := TakeSample(sc, r.Pid(), r.URL)
			cancel()
			if err != nil {
				errs = append(errs, fmt.Sprintf("sample at %s: %v", now.Sub(start).Round(time.Second), err))
				continue
			}
			smp.At, smp.Warm, smp.Window = now.Sub(start), now.Sub(start) >= s.Warmup, rec.Window()
			PrintSample(os.Stdout, smp, now.Sub(last))
			samples, last = append(samples, smp), now
		}
	}
}

// verdict fails the test on any error or on growth after the warm-up, and
// prints the verdict line either way.
func verdict(t *testing.T, run time.Duration, samples []Sample, errs map[string]int, sampleErrs []string, r *ragdproc.Process) {
	var problems []string
	n := 0
	for _, v := range errs {
		n += v
	}
	if n > 0 {
		problems = append(problems, fmt.Sprintf("%d requests failed (kinds and bodies above)", n))
	}
	problems = append(problems, sampleErrs...)
	var tt []float64
	var warm []Sample
	for _, s := range samples {
		if s.Warm {
			tt, warm = append(tt, s.At.Seconds()), append(warm, s)
		}
	}
	fmt.Println()
	for _, b := range bounds {
		v := make([]float64, len(warm))
		for i, s := range warm {
			v[i] = b.value(s)
		}
		if run < b.minRun {
			fmt.Printf("%-11s %s; not judged in a run under %s\n", b.name, Measure(tt, v), b.minRun)
			continue
		}
		why := Growth(tt, v, b.bound)
		fmt.Printf("%-11s %s; bound +%.0f%% + %g\n", b.name, Measure(tt, v), 100*b.bound.Relative, b.bound.Slack)
		if why != "" {
			problems = append(problems, b.name+" grew: "+why)
		}
	}
	heap := make([]float64, len(warm))
	for i, s := range warm {
		heap[i] = s.Heap / mib
	}
	fmt.Printf("%-11s %s; not judged (it saws with each GC)\n", "heap (MiB)", Measure(tt, heap))
	if len(problems) == 0 {
		fmt.Println("VERDICT: PASS — no errors and no growth after the warm-up")
		return
	}
	fmt.Println("VERDICT: FAIL")
	for _, p := range problems {
		fmt.Println("  - " + p)
		t.Error(p)
	}
	fmt.Printf("last lines of ragd's log:\n%s\n", r.LogTail(40))
}
