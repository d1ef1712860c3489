package cli

import (
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/vbauerster/cupwriter"
	"github.com/vbauerster/mpb/v8"
	"github.com/vbauerster/mpb/v8/decor"
)

// display shows gauges while their work runs: bars on a terminal, plain
// lines elsewhere, nothing with --json.
type display interface {
	// add shows g until it ends.
	add(g *gauge)
	// wait returns once every gauge added has ended and is drawn so.
	wait()
}

// newDisplay picks the display for the session's output.
func (s *session) newDisplay() display {
	switch {
	case s.globals.json:
		return &quietDisplay{}
	case s.env.Terminal:
		return newBarDisplay(s.env.Stdout)
	default:
		return &lineDisplay{w: s.env.Stdout, every: time.Second}
	}
}

// quietDisplay shows nothing (--json).
type quietDisplay struct{ wg sync.WaitGroup }

func (d *quietDisplay) add(g *gauge) {
	d.wg.Go(func() { <-g.over })
}

func (d *quietDisplay) wait() { d.wg.Wait() }

// barWidth is the width of the bar itself, beside its label and counts.
const barWidth = 24

// barRefresh is how often bars take their gauges' counts.
const barRefresh = 150 * time.Millisecond

// barDisplay draws one bar per gauge with mpb.
type barDisplay struct {
	p  *mpb.Progress
	wg sync.WaitGroup
}

func newBarDisplay(w io.Writer) *barDisplay {
	cw := sizedConsole{cupwriter.New(w, false)}
	return &barDisplay{p: mpb.New(mpb.WithConsoleWriter(cw), mpb.WithRefreshRate(barRefresh))}
}

// sizedConsole is mpb's own console writer, but a terminal that reports
// no size (a pseudo-terminal nobody sized) counts as 80x24: mpb would
// otherwise draw no row at all.
type sizedConsole struct{ *cupwriter.Writer }

func (c sizedConsole) GetTermSize() (width, height int, err error) {
	width, height, err = c.Writer.GetTermSize()
	if err != nil || width <= 0 || height <= 0 {
		return 80, 24, nil
	}
	return width, height, nil
}

func (d *barDisplay) add(g *gauge) {
	// A bar made with total 0 never completes by itself: only finish
	// does, so a job whose counts are all done but that has not ended yet
	// keeps its bar live.
	bar := d.p.New(0, mpb.BarStyle(), mpb.BarWidth(barWidth),
		mpb.PrependDecorators(decor.Name(oneLine(g.label, 32)+" ", decor.WCSyncSpaceR)),
		mpb.AppendDecorators(decor.Any(func(decor.Statistics) string { return " " + g.state().text() })))
	d.wg.Go(func() {
		tick := time.NewTicker(barRefresh)
		defer tick.Stop()
		for {
			st := g.state()
			bar.SetTotal(st.total, false)
			bar.SetCurrent(st.done)
			if st.ended {
				if st.failed {
					bar.Abort(false)
				} else {
					bar.SetTotal(-1, true)
				}
				return
			}
			select {
			case <-g.over:
			case <-tick.C:
			}
		}
	})
}

func (d *barDisplay) wait() {
	d.wg.Wait()
	d.p.Wait()
}

// lineDisplay prints a gauge's line when it has changed, at most once per
// interval each.
type lineDisplay struct {
	w     io.Writer
	every time.Duration
	mu    sync.Mutex // one line at a time
	wg    sync.WaitGroup
}

func (d *lineDisplay) add(g *gauge) {
	d.wg.Go(func() {
		tick := time.NewTicker(d.every)
		defer tick.Stop()
		last := ""
		for {
			select {
			case <-g.over:
				return
			case <-tick.C:
			}
			st := g.state()
			if line := st.phase + st.counts() + st.extra; line != last {
				last = line
				d.mu.Lock()
				fmt.Fprintf(d.w, "%s: %s\n", g.label, st.text())
				d.mu.Unlock()
			}
		}
	})
}

func (d *lineDisplay) wait() { d.wg.Wait() }
