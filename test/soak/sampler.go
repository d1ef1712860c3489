package soak

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"
)

// Sample is ragd's state at one moment, with the requests of the window
// before it.
type Sample struct {
	At         time.Duration // since the load started
	Warm       bool          // taken after the warm-up: judged
	RSS        float64       // bytes, /proc/PID/status VmRSS
	Heap       float64       // bytes, go_memstats_heap_inuse_bytes
	Goroutines float64       // go_goroutines
	OpenFiles  float64       // entries of /proc/PID/fd
	Window     WindowStats
}

// TakeSample reads /proc for pid and ragd's /metrics.
func TakeSample(ctx context.Context, pid int, base string) (Sample, error) {
	var s Sample
	var err error
	if s.RSS, err = procRSS(pid); err != nil {
		return s, err
	}
	fds, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	if err != nil {
		return s, err
	}
	s.OpenFiles = float64(len(fds))
	m, err := scrape(ctx, base+"/metrics", "go_goroutines", "go_memstats_heap_inuse_bytes")
	if err != nil {
		return s, err
	}
	s.Goroutines, s.Heap = m["go_goroutines"], m["go_memstats_heap_inuse_bytes"]
	return s, nil
}

// procRSS is the process's resident set in bytes.
func procRSS(pid int) (float64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	for line := range strings.Lines(string(b)) {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 64)
			return kb * 1024, err
		}
	}
	return 0, fmt.Errorf("no VmRSS in /proc/%d/status", pid)
}

// scrape reads the named unlabelled gauges from a Prometheus text page.
func scrape(ctx context.Context, url string, names ...string) (map[string]float64, error) {
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET %s: %d %v", url, resp.StatusCode, err)
	}
	out := map[string]float64{}
	sc := bufio.NewScanner(bytes.NewReader(body))
	sc.Buffer(make([]byte, 0, 64*1024), 1<<20)
	for sc.Scan() {
		name, value, ok := strings.Cut(sc.Text(), " ")
		for _, n := range names {
			if ok && name == n {
				if out[n], err = strconv.ParseFloat(strings.TrimSpace(value), 64); err != nil {
					return nil, fmt.Errorf("%s: %w", n, err)
				}
			}
		}
	}
	for _, n := range names {
		if _, ok := out[n]; !ok {
			return nil, fmt.Errorf("%s has no %s", url, n)
		}
	}
	return out, sc.Err()
}
