package cli

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/vbauerster/mpb/v8"
)

// screen is a terminal's output, written by mpb and read by the test.
type screen struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (s *screen) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.buf.Write(p)
}

// row is the last row drawn: the last line after the last cursor
// movement.
func (s *screen) row() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	frames := regexp.MustCompile(`\x1b\[[0-9;]*[A-Za-z]`).Split(s.buf.String(), -1)
	for i := len(frames) - 1; i >= 0; i-- {
		if r := strings.TrimRight(frames[i], "\n"); r != "" {
			return r[strings.LastIndex(r, "\n")+1:]
		}
	}
	return ""
}

// drawn is the row mpb draws for g at done of total in phase once the
// display has taken the counts.
func drawn(t *testing.T, scr *screen, refresh chan any, g *gauge, done, total int64, phase string) string {
	t.Helper()
	g.set(done, total, "chunks", phase, "")
	want := fmt.Sprintf("%*d/%d", len(fmt.Sprint(total)), done, total)
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); {
		refresh <- time.Now()
		time.Sleep(20 * time.Millisecond)
		if row := scr.row(); strings.Contains(row, want) {
			return row
		}
	}
	t.Fatalf("no row with %q:\n%q", want, scr.row())
	return ""
}

// barOf is the width of the bar drawn in row, brackets included.
func barOf(row string) int {
	return utf8.RuneCountInString(regexp.MustCompile(`\[[=>\-_ ]*\]`).FindString(row))
}

// A bar's row at 40, 80 and 120 columns, as mpb draws it: never wider than
// the terminal, the bar as wide at 0 as at 7020 of 7020, the label
// shortened in its middle so the file's name stays, and a phase label
// while every count is done but the work goes on.
func TestBarRowsAtFixedWidths(t *testing.T) {
	label := "switch to /home/user/notes.d/projects/2026/quarterly-report.md"
	const total = 7020
	for _, width := range []int{40, 80, 120} {
		t.Run(fmt.Sprint(width), func(t *testing.T) {
			scr := &screen{}
			refresh := make(chan any)
			d := newBarDisplay(scr, width, mpb.WithManualRefresh(refresh))
			g := newGauge(label, "chunks")
			g.set(0, 0, "chunks", "queued", "")
			d.add(g)
			bar := 0
			for _, done := range []int64{0, 1, 9, 10, 99, 100, 999, 1000, 7019, total} {
				row := drawn(t, scr, refresh, g, done, total, "")
				if n := utf8.RuneCountInString(row); n > width {
					t.Errorf("%d columns at %d/%d, wider than %d:\n%q", n, done, total, width, row)
				}
				if bar == 0 {
					bar = barOf(row)
				}
				if b := barOf(row); b != bar || b < 4 {
					t.Errorf("bar %d columns at %d/%d, %d at 0:\n%q", b, done, total, bar, row)
				}
				if !strings.HasPrefix(row, "sw") || !strings.Contains(row, "…") || !strings.Contains(row, "md ") {
					t.Errorf("label not shortened from its middle:\n%q", row)
				}
				if width >= 80 && !strings.Contains(row, "report.md") {
					t.Errorf("label lost the file's name:\n%q", row)
				}
				if done == total && !strings.Contains(row, "finishing…") {
					t.Errorf("no phase label at %d/%d:\n%q", done, total, row)
				}
			}
			if row := drawn(t, scr, refresh, g, total, total, "cutting over…"); !strings.Contains(row, "cutting over…") {
				t.Errorf("no cutover label:\n%q", row)
			}
			g.finish(false)
			close(refresh)
			d.wait()
		})
	}
}

// Every phase has a label: queued, a wait with no counter, all done but
// not ended; the counts column is never wider than its width.
func TestBarTextPhases(t *testing.T) {
	for _, tc := range []struct {
		st   gaugeState
		want string
	}{
		{gaugeState{phase: "queued", unit: "files"}, "queued · 0 files"},
		{gaugeState{unit: "chunks"}, "starting… · 0 chunks"},
		{gaugeState{done: 7020, total: 7020, unit: "chunks"}, "finishing… · 7020/7020 chunks"},
		{gaugeState{done: 5, total: 7020, unit: "chunks"}, "   5/7020 chunks"},
	} {
		if got := tc.st.barText(60); got != tc.want {
			t.Errorf("%+v: %q, want %q", tc.st, got, tc.want)
		}
		for n := 1; n < 40; n++ {
			if got := tc.st.barText(n); utf8.RuneCountInString(got) > n {
				t.Errorf("%q is wider than %d", got, n)
			}
		}
	}
}
