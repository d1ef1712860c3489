package llm

import (
	"sync/atomic"
	"time"
)

// idleTimer cancels a stream that has gone quiet for too long. A plain
// deadline would cut off long answers that are still flowing.
type idleTimer struct {
	d     time.Duration
	t     *time.Timer
	fired atomic.Bool
}

// startIdle arms a timer that calls cancel after d without a reset; d <= 0
// disables it.
func startIdle(d time.Duration, cancel func()) *idleTimer {
	it := &idleTimer{d: d}
	if d > 0 {
		it.t = time.AfterFunc(d, func() { it.fired.Store(true); cancel() })
	}
	return it
}

func (it *idleTimer) reset() {
	if it.t != nil && !it.fired.Load() {
		it.t.Reset(it.d)
	}
}

func (it *idleTimer) stop() {
	if it.t != nil {
		it.t.Stop()
	}
}

// expired reports whether the timer fired.
func (it *idleTimer) expired() bool { return it.fired.Load() }
