package soak

import "fmt"

// Bound is how much a series may grow after the warm-up: Relative of its
// early level plus Slack (in the series' unit), by both measures of Growth.
type Bound struct {
	Relative float64 // e.g. 0.10
	Slack    float64 // e.g. 10 goroutines
}

// minSamples is the fewest post-warm-up samples a verdict is drawn from:
// thirds of fewer say nothing.
const minSamples = 6

// Trend is a series after the warm-up, as Growth judges it.
type Trend struct {
	First, Last float64 // means of the first and the last third
	Rise        float64 // least-squares slope × the span: what a steady climb added
	Samples     int
}

// Measure is the Trend of v sampled at times t (seconds).
func Measure(t, v []float64) Trend {
	n := len(v)
	if n < 3 || len(t) != n {
		return Trend{Samples: n}
	}
	third := n / 3
	return Trend{First: mean(v[:third]), Last: mean(v[n-third:]), Rise: slope(t, v) * (t[n-1] - t[0]), Samples: n}
}

// String prints the trend's figures.
func (tr Trend) String() string {
	return fmt.Sprintf("first third %.1f, last third %.1f, fitted rise %+.1f (%d samples)", tr.First, tr.Last, tr.Rise, tr.Samples)
}

// Growth judges one series sampled at times t (seconds) after the warm-up.
// It grows if either
//
//   - the least-squares slope times the span (the rise a steady leak would
//     show over the run) exceeds Relative × the first third's mean + Slack, or
//   - the last third's mean exceeds the first third's × (1 + Relative) + Slack
//     (a step, or a climb after an early fall, which the fit may miss).
//
// Noise around a level passes both; a steady climb or a step fails one.
// It returns "" when the series does not grow, else why it does.
func Growth(t, v []float64, b Bound) string {
	tr := Measure(t, v)
	if tr.Samples < minSamples || len(t) != len(v) {
		return fmt.Sprintf("only %d samples after the warm-up (need %d): lengthen SOAK_DURATION or shorten SOAK_INTERVAL", len(v), minSamples)
	}
	if limit := b.Relative*tr.First + b.Slack; tr.Rise > limit {
		return fmt.Sprintf("fitted rise %.4g over the run > bound %.4g (%.0f%% of the first third's mean %.4g + %.4g)",
			tr.Rise, limit, 100*b.Relative, tr.First, b.Slack)
	}
	if limit := tr.First*(1+b.Relative) + b.Slack; tr.Last > limit {
		return fmt.Sprintf("last third's mean %.4g > bound %.4g (first third's mean %.4g × %.2f + %.4g)",
			tr.Last, limit, tr.First, 1+b.Relative, b.Slack)
	}
	return ""
}

func mean(v []float64) float64 {
	s := 0.0
	for _, x := range v {
		s += x
	}
	return s / float64(len(v))
}

// slope is the least-squares slope of v over t (0 if t does not vary).
func slope(t, v []float64) float64 {
	mt, mv := mean(t), mean(v)
	var num, den float64
	for i := range t {
		num += (t[i] - mt) * (v[i] - mv)
		den += (t[i] - mt) * (t[i] - mt)
	}
	if den == 0 {
		return 0
	}
	return num / den
}
