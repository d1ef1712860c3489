package soak

import (
	"math"
	"strings"
	"testing"
)

// series is n samples 10 s apart of f(i).
func series(n int, f func(i int) float64) (t, v []float64) {
	for i := range n {
		t = append(t, float64(10*i))
		v = append(v, f(i))
	}
	return t, v
}

// wobble is deterministic noise of amplitude a.
func wobble(i int, a float64) float64 { return a * math.Sin(float64(i)*1.7) }

func TestGrowthPassesNoiseAroundALevel(t *testing.T) {
	b := Bound{Relative: 0.10, Slack: 10}
	for name, f := range map[string]func(int) float64{
		"flat":              func(int) float64 { return 100 },
		"noisy":             func(i int) float64 { return 100 + wobble(i, 8) },
		"falling":           func(i int) float64 { return 200 - float64(i) },
		"one spike at last": func(i int) float64 { return map[bool]float64{true: 130, false: 100}[i == 47] },
	} {
		tt, v := series(48, f)
		if why := Growth(tt, v, b); why != "" {
			t.Errorf("%s: judged growing: %s", name, why)
		}
	}
}

func TestGrowthFailsALeak(t *testing.T) {
	b := Bound{Relative: 0.10, Slack: 10}
	for name, c := range map[string]struct {
		f    func(int) float64
		says string
	}{
		// +0.5 a sample: +23.5 over the run on a level of 100.
		"steady climb": {func(i int) float64 { return 100 + 0.5*float64(i) + wobble(i, 2) }, "fitted rise"},
		"noisy climb":  {func(i int) float64 { return 1000 + 10*float64(i) + wobble(i, 40) }, "fitted rise"},
		"step up":      {func(i int) float64 { return map[bool]float64{true: 160, false: 100}[i >= 32] }, ""},
		"climb in fds": {func(i int) float64 { return 30 + float64(i) }, "fitted rise"},
	} {
		tt, v := series(48, c.f)
		why := Growth(tt, v, b)
		if why == "" || !strings.Contains(why, c.says) {
			t.Errorf("%s: Growth = %q, want a verdict containing %q", name, why, c.says)
		}
	}
}

// A series that falls early and then settles above its start: the fit,
// pulled down by the fall, stays under its bound; the thirds catch it.
func TestGrowthThirdsCatchWhatTheFitMisses(t *testing.T) {
	tt, v := series(48, func(i int) float64 {
		switch {
		case i < 16:
			return 200 - 10*float64(i)
		case i < 32:
			return 0
		}
		return 150
	})
	why := Growth(tt, v, Bound{Relative: 0.10, Slack: 10})
	if !strings.Contains(why, "last third") {
		t.Fatalf("Growth = %q, want the thirds to judge it growing", why)
	}
}

func TestGrowthNeedsSamples(t *testing.T) {
	tt, v := series(minSamples-1, func(int) float64 { return 1 })
	if why := Growth(tt, v, Bound{Relative: 0.1, Slack: 1}); !strings.Contains(why, "only 5 samples") {
		t.Errorf("Growth of %d samples = %q, want it to refuse to judge", minSamples-1, why)
	}
}
