package cli

import (
	"fmt"
	"strings"
	"sync"
	"time"
)

// gauge is the progress of one piece of work (a job, a transfer), set by
// the goroutine doing it and read by the display.
type gauge struct {
	label string
	start time.Time

	mu          sync.Mutex
	done, total int64  // in unit; total 0 while unknown
	unit        string // files, chunks, pages, bytes
	phase       string // shown before the counts: queued, uploading…
	extra       string // shown after the counts: "120 chunks"
	ended       bool
	failed      bool
	// running is when the work first ran (not queued): the rate counts
	// from then.
	running time.Time
	endedAt time.Time
	// over is closed when the work ends.
	over chan struct{}
}

func newGauge(label, unit string) *gauge {
	return &gauge{label: label, unit: unit, start: time.Now(), over: make(chan struct{})}
}

// gaugeState is a gauge read at one instant.
type gaugeState struct {
	done, total   int64
	unit, phase   string
	extra         string
	ended, failed bool
	// running is how long the work has run (0 while queued).
	running time.Duration
}

// set records the current counts.
func (g *gauge) set(done, total int64, unit, phase, extra string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.ended {
		return
	}
	g.done, g.total, g.phase, g.extra = done, total, phase, extra
	if phase == "" && g.running.IsZero() {
		g.running = time.Now()
	}
	if unit != "" {
		g.unit = unit
	}
}

// finish marks the work ended (failed: it did not succeed).
func (g *gauge) finish(failed bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.ended {
		return
	}
	g.ended, g.failed, g.endedAt = true, failed, time.Now()
	if !failed && g.total > 0 {
		g.done = g.total
	}
	close(g.over)
}

func (g *gauge) state() gaugeState {
	g.mu.Lock()
	defer g.mu.Unlock()
	return gaugeState{done: g.done, total: g.total, unit: g.unit, phase: g.phase, extra: g.extra,
		ended: g.ended, failed: g.failed, running: g.ranFor()}
}

// ranFor is how long the work has run, or ran: 0 while queued.
func (g *gauge) ranFor() time.Duration {
	switch {
	case g.running.IsZero():
		return 0
	case g.ended:
		return g.endedAt.Sub(g.running)
	default:
		return time.Since(g.running)
	}
}

// minRateSeconds is how long work must run before its rate means anything.
const minRateSeconds = 0.5

// text is the gauge's counts, rate and ETA: "3/10 files · 120 chunks ·
// 2.1 files/s · ETA 3s".
func (st gaugeState) text() string {
	var parts []string
	if st.phase != "" {
		parts = append(parts, st.phase)
	}
	parts = append(parts, st.counts())
	return strings.Join(append(parts, st.details()...), " · ")
}

// details is what follows the counts, least wanted last: the extra, the
// rate and the ETA.
func (st gaugeState) details() []string {
	var parts []string
	if st.extra != "" {
		parts = append(parts, st.extra)
	}
	if secs := st.running.Seconds(); st.done > 0 && secs >= minRateSeconds {
		rate := float64(st.done) / secs
		parts = append(parts, st.rate(rate))
		if !st.ended && st.total > st.done {
			parts = append(parts, "ETA "+seconds(time.Duration(float64(st.total-st.done)/rate*float64(time.Second))))
		}
	}
	return parts
}

func (st gaugeState) counts() string {
	if st.unit == "bytes" {
		if st.total > 0 {
			return byteSize(float64(st.done)) + " / " + byteSize(float64(st.total))
		}
		return byteSize(float64(st.done))
	}
	if st.total > 0 {
		return fmt.Sprintf("%d/%d %s", st.done, st.total, st.unit)
	}
	return fmt.Sprintf("%d %s", st.done, st.unit)
}

func (st gaugeState) rate(perSecond float64) string {
	if st.unit == "bytes" {
		return byteSize(perSecond) + "/s"
	}
	return fmt.Sprintf("%.1f %s/s", perSecond, st.unit)
}
