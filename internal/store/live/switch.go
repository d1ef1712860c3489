package live

import (
	"context"
	"errors"

	"ragd"
)

// ErrSwitchGone is returned by a transition of a switch that is no longer
// the one recorded (it ended, or was abandoned): there is nothing to do.
var ErrSwitchGone = errors.New("embedder switch: no longer recorded")

// The transitions of a switch. Each is one Update of the record: Begin
// starts a switch, Abandon forgets one whose job was never enqueued;
// Checkpoint and SetError record a copy's progress and its last failure;
// CutOver makes the new target live; Cancelling turns a copy into a
// cancel; Finish forgets a switch that dropped its old (or, cancelled,
// its new) collection. Every one but Begin names the switch by its job id
// and returns ErrSwitchGone when another is recorded.

// Refuse is the conflict a switch to name would be in st: another switch
// under way, or name live already.
func Refuse(st State, name string) error {
	if st.Switch != nil {
		return ragd.Conflict("a switch to %q is under way (job %s); wait for it or cancel it", st.Switch.To.Name, st.Switch.JobID)
	}
	if st.Live.Name == name {
		return ragd.Conflict("embedder %q is live already", name)
	}
	return nil
}

// Begin records a switch of job id to target to, unless Refuse refuses it
// in the state it reads; from then on every process writes to both
// collections. It returns the target the switch is from.
func (r *Records) Begin(ctx context.Context, id string, to Target) (Target, error) {
	var from Target
	_, err := r.Update(ctx, true, func(s *State) error {
		if err := Refuse(*s, to.Name); err != nil {
			return err
		}
		from = s.Live
		s.Switch = &Switch{JobID: id, From: s.Live, To: to, Phase: PhaseCopying}
		return nil
	})
	return from, err
}

// Abandon forgets the switch of job id, if it is the one recorded.
func (r *Records) Abandon(ctx context.Context, id string) error {
	return r.Finish(ctx, id)
}

// Finish forgets the switch of job id, if it is the one recorded.
func (r *Records) Finish(ctx context.Context, id string) error {
	_, err := r.Update(ctx, true, func(s *State) error {
		if s.Switch != nil && s.Switch.JobID == id {
			s.Switch = nil
		}
		return nil
	})
	return err
}

// Progress is where a copy stands: Switch's Done, Total, Copied,
// Namespace, After and Images.
type Progress struct {
	Done, Total int
	Copied      []string
	Namespace   string
	After       string
	Images      bool
}

// Checkpoint records the progress of the copy of job id.
func (r *Records) Checkpoint(ctx context.Context, id string, p Progress) error {
	_, err := r.Update(ctx, false, func(s *State) error {
		if s.Switch == nil || s.Switch.JobID != id {
			return ErrSwitchGone
		}
		s.Switch.Done, s.Switch.Total, s.Switch.Copied = p.Done, p.Total, p.Copied
		s.Switch.Namespace, s.Switch.After, s.Switch.Images = p.Namespace, p.After, p.Images
		return nil
	})
	return err
}

// SetError records the last failure the copy of job id waits out; ""
// clears it.
func (r *Records) SetError(ctx context.Context, id, msg string) error {
	_, err := r.Update(ctx, false, func(s *State) error {
		if s.Switch == nil || s.Switch.JobID != id {
			return ErrSwitchGone
		}
		s.Switch.Error = msg
		return nil
	})
	return err
}

// CutOver makes the target of the copying switch of job id live; the
// switch goes on dropping the old collection.
func (r *Records) CutOver(ctx context.Context, id string) (State, error) {
	return r.Update(ctx, true, func(s *State) error {
		if s.Switch == nil || s.Switch.JobID != id || s.Switch.Phase != PhaseCopying {
			return ErrSwitchGone
		}
		s.Live, s.Switch.Phase, s.Switch.Error = s.Switch.To, PhaseDropping, ""
		return nil
	})
}

// Cancelling turns the switch of job id into a cancel, unless it is past
// its cutover.
func (r *Records) Cancelling(ctx context.Context, id string) (State, error) {
	return r.Update(ctx, true, func(s *State) error {
		if s.Switch == nil || s.Switch.JobID != id || s.Switch.Phase == PhaseDropping {
			return ErrSwitchGone
		}
		s.Switch.Phase = PhaseCancelling
		return nil
	})
}
