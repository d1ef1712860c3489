package soak

import (
	"fmt"
	"io"
	"sort"
	"time"
)

const mib = 1 << 20

// PrintHeader prints the column names of PrintSample's rows.
func PrintHeader(w io.Writer) {
	fmt.Fprintf(w, "%8s %5s %8s %8s %10s %9s %8s %7s %7s %9s %9s\n",
		"t", "warm", "rss_MiB", "heap_MiB", "goroutines", "open_fds", "reqs", "req/s", "errors", "p50_ms", "p99_ms")
}

// PrintSample prints one row of the curve; the window is every second
// since the previous sample.
func PrintSample(w io.Writer, s Sample, window time.Duration) {
	warm := "-"
	if s.Warm {
		warm = "yes"
	}
	fmt.Fprintf(w, "%8s %5s %8.1f %8.1f %10.0f %9.0f %8d %7.1f %7d %9.1f %9.1f\n",
		s.At.Round(time.Second), warm, s.RSS/mib, s.Heap/mib, s.Goroutines, s.OpenFiles,
		s.Window.Requests, float64(s.Window.Requests)/window.Seconds(), s.Window.Errors, ms(s.Window.P50), ms(s.Window.P99))
}

// PrintSummary prints each operation's totals, the errors by kind and the
// first failed requests in full.
func PrintSummary(w io.Writer, ops []OpSummary, errs map[string]int, failures []string, elapsed time.Duration) {
	fmt.Fprintf(w, "\n%-18s %9s %7s %9s %9s %9s\n", "operation", "requests", "errors", "req/s", "p50_ms", "p99_ms")
	total := 0
	for _, o := range ops {
		total += o.Requests
		fmt.Fprintf(w, "%-18s %9d %7d %9.2f %9.1f %9.1f\n", o.Op, o.Requests, o.Errors, float64(o.Requests)/elapsed.Seconds(), ms(o.P50), ms(o.P99))
	}
	fmt.Fprintf(w, "%-18s %9d\n", "all", total)
	if len(errs) == 0 {
		return
	}
	kinds := make([]string, 0, len(errs))
	for k := range errs {
		kinds = append(kinds, k)
	}
	sort.Strings(kinds)
	fmt.Fprintln(w, "\nerrors by kind:")
	for _, k := range kinds {
		fmt.Fprintf(w, "  %6d  %s\n", errs[k], k)
	}
	fmt.Fprintf(w, "\nfirst %d failed requests:\n", len(failures))
	for _, f := range failures {
		fmt.Fprintln(w, "  "+f)
	}
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
