package cli

import (
	"context"
	"fmt"
	"time"

	"ragd"
	"ragd/wire"
)

// Switched is ragd embedder switch's --json output: the switch as
// accepted, the job as it ended, and the live embedder after it.
type Switched struct {
	Switch  wire.SwitchAccepted `json:"switch"`
	Job     *ragd.Job           `json:"job"`
	Live    wire.EmbedderInfo   `json:"live"`
	Seconds float64             `json:"seconds"`
}

// runEmbedder: ragd embedder (the live embedder and any switch under way)
// and ragd embedder switch NAME (a switch followed to its end with a
// progress bar).
func runEmbedder(ctx context.Context, s *session, args []string) error {
	fs := s.flags()
	pos, err := s.parse(fs, args, 0, 2)
	if err != nil {
		return err
	}
	switch {
	case len(pos) == 0:
		return s.embedderStatus(ctx)
	case pos[0] == "switch" && len(pos) == 2:
		return s.switchEmbedder(ctx, pos[1])
	}
	return usageErrorf("usage: ragd embedder [switch NAME]")
}

func (s *session) embedderStatus(ctx context.Context) error {
	c, err := s.client()
	if err != nil {
		return err
	}
	st, err := c.Embedder(ctx)
	if err != nil {
		return err
	}
	if s.globals.json {
		return s.emit(st)
	}
	s.printf("live: %s (%s %s, %d dimensions)\n", st.Live.Name, st.Live.Provider, st.Live.Model, st.Live.Dimension)
	if sw := st.Switch; sw != nil {
		s.printf("switch to %s: job %s, %s, %s, %d/%d chunks", sw.To.Name, sw.JobID, sw.Status, sw.Phase, sw.Progress.Done, sw.Progress.Total)
		if sw.Error != "" {
			s.printf(", waiting: %s", sw.Error)
		}
		s.printf("\n")
	}
	return nil
}

func (s *session) switchEmbedder(ctx context.Context, name string) error {
	c, err := s.client()
	if err != nil {
		return err
	}
	start := time.Now()
	acc, err := c.SwitchEmbedder(ctx, name)
	if err != nil {
		return err
	}
	d := s.newDisplay()
	g := newGauge("switch to "+name, "chunks")
	d.add(g)
	job, err := followJob(ctx, c, acc.JobID, func(j *ragd.Job) {
		phase := phaseOf(j.Status)
		if phase == "" && j.Progress.Total > 0 && j.Progress.Done >= j.Progress.Total {
			// Every chunk is copied: the switch is making the copy live.
			phase = "cutting over…"
		}
		g.set(int64(j.Progress.Done), int64(j.Progress.Total), j.Progress.Unit, phase, "")
	})
	g.finish(err != nil || job.Status != ragd.JobCompleted)
	d.wait()
	if err != nil {
		return err
	}
	out := Switched{Switch: acc, Job: job, Seconds: time.Since(start).Round(time.Millisecond).Seconds()}
	if st, err := c.Embedder(ctx); err == nil {
		out.Live = st.Live
	}
	if s.globals.json {
		if err := s.emit(out); err != nil {
			return err
		}
	} else if job.Status == ragd.JobCompleted {
		s.printf("switched from %s to %s (%d dimensions): %d chunks in %s\n", acc.From, name, out.Live.Dimension,
			job.Progress.Done, seconds(time.Duration(out.Seconds*float64(time.Second))))
	}
	switch job.Status {
	case ragd.JobCompleted:
		return nil
	case ragd.JobCancelled:
		return &failedError{msg: fmt.Sprintf("embedder switch %s was cancelled; %s stays live", job.ID, acc.From)}
	default:
		return &failedError{msg: fmt.Sprintf("embedder switch %s failed: %s", job.ID, job.Error)}
	}
}
