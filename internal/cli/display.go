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
		return newBarDisplay(s.env.Stdout, 0)
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

// barWidth is the widest bar, beside its label and counts (barColumns).
const barWidth = 24

// barRefresh is how often bars take their gauges' counts.
const barRefresh = 150 * time.Millisecond

// barDisplay draws one bar per gauge with mpb.
type barDisplay struct {
	p  *mpb.Progress
	wg sync.WaitGroup
}

// newBarDisplay draws on w, as wide as the terminal (width 0) or width
// columns; options are mpb's (a test's manual refresh).
func newBarDisplay(w io.Writer, width int, options ...mpb.ContainerOption) *barDisplay {
	cw := sizedConsole{cupwriter.New(w, false), width}
	return &barDisplay{p: mpb.New(append([]mpb.ContainerOption{mpb.WithConsoleWriter(cw),
		mpb.WithRefreshRate(barRefresh)}, options...)...)}
}

// sizedConsole is mpb's own console writer, but a terminal that reports
// no size (a pseudo-terminal nobody sized) counts as 80x24: mpb would
// otherwise draw no row at all. A width other than 0 is the terminal's.
type sizedConsole struct {
	*cupwriter.Writer
	width int
}

// IsTerminal is true for a fixed width: mpb asks the size of terminals
// alone.
func (c sizedConsole) IsTerminal() bool { return c.width > 0 || c.Writer.IsTerminal() }

func (c sizedConsole) GetTermSize() (width, height int, err error) {
	if c.width > 0 {
		return c.width, 24, nil
	}
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
	// The label's decorator is drawn first and given the terminal's
	// width: it lays out the row and leaves the counts for the other.
	var counts string
	bar := d.p.New(0, mpb.BarStyle(), mpb.BarWidth(barWidth),
		mpb.PrependDecorators(decor.Any(func(s decor.Statistics) string {
			st := g.state()
			label, _, n := st.barColumns(s.AvailableWidth)
			// Padded to its column, the counts leave the bar its width.
			counts = pad(st.barText(n), n)
			return fitLabel(g.label, label)
		})),
		mpb.AppendDecorators(decor.Any(func(decor.Statistics) string { return counts })))
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
