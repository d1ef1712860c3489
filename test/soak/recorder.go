package soak

import (
	"slices"
	"sort"
	"sync"
	"time"
)

// maxBodies is how many failed requests the report prints in full.
const maxBodies = 25

// Recorder collects every request's latency and every error.
type Recorder struct {
	mu       sync.Mutex
	ops      map[string]*opStats
	window   []time.Duration // latencies since the last Window call
	windowN  int
	errors   map[string]int // by kind: "op: status" or "op: what"
	failures []string       // the first maxBodies failures, with the body
}

type opStats struct {
	latencies []time.Duration
	errors    int
}

// NewRecorder is an empty Recorder.
func NewRecorder() *Recorder {
	return &Recorder{ops: map[string]*opStats{}, errors: map[string]int{}}
}

func (r *Recorder) op(name string) *opStats {
	s := r.ops[name]
	if s == nil {
		s = &opStats{}
		r.ops[name] = s
	}
	return s
}

// OK records a request of op that answered as it should.
func (r *Recorder) OK(op string, d time.Duration) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.op(op).latencies = append(r.op(op).latencies, d)
	r.window = append(r.window, d)
	r.windowN++
}

// Fail records a request of op that did not: kind names how (a status or
// what was wrong), detail is the body or error the report prints.
func (r *Recorder) Fail(op string, d time.Duration, kind, detail string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	s := r.op(op)
	s.latencies = append(s.latencies, d)
	s.errors++
	r.window = append(r.window, d)
	r.windowN++
	r.errors[op+": "+kind]++
	if len(r.failures) < maxBodies {
		if len(detail) > 600 {
			detail = detail[:600] + "…"
		}
		r.failures = append(r.failures, time.Now().Format("15:04:05")+" "+op+": "+kind+": "+detail)
	}
}

// WindowStats are the requests since the previous call.
type WindowStats struct {
	Requests int
	Errors   int // all so far
	P50, P99 time.Duration
}

// Window returns the requests since the previous call and starts a new window.
func (r *Recorder) Window() WindowStats {
	r.mu.Lock()
	defer r.mu.Unlock()
	w := WindowStats{Requests: r.windowN, P50: percentile(r.window, 0.50), P99: percentile(r.window, 0.99)}
	for _, n := range r.errors {
		w.Errors += n
	}
	r.window, r.windowN = r.window[:0], 0
	return w
}

// OpSummary is one operation's totals.
type OpSummary struct {
	Op               string
	Requests, Errors int
	P50, P99         time.Duration
}

// Summary is every operation's totals, by name, and the errors by kind.
func (r *Recorder) Summary() ([]OpSummary, map[string]int, []string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []OpSummary
	for name, s := range r.ops {
		out = append(out, OpSummary{Op: name, Requests: len(s.latencies), Errors: s.errors,
			P50: percentile(s.latencies, 0.50), P99: percentile(s.latencies, 0.99)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Op < out[j].Op })
	errs := make(map[string]int, len(r.errors))
	for k, v := range r.errors {
		errs[k] = v
	}
	return out, errs, slices.Clone(r.failures)
}

// percentile is the q-quantile of ds (nearest rank); 0 for none.
func percentile(ds []time.Duration, q float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	i := int(q*float64(len(s))+0.5) - 1
	return s[min(max(i, 0), len(s)-1)]
}
