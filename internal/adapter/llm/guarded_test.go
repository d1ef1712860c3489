package llm

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"time"

	"ragd"
	"ragd/internal/platform/resilience"
)

func guardFor(timeout time.Duration) *resilience.Guard {
	return resilience.New("llm", resilience.Policy{Timeout: timeout, FailThreshold: 5, OpenFor: time.Second}, IsTransient, resilience.Hooks{})
}

// A guarded stream is bounded by the wait for each chunk only: one that
// lasts longer than llm.timeout in all but never pauses that long is not
// cut off.
func TestGuardedStreamOutlivesTheTimeout(t *testing.T) {
	srv, _ := newServer(t, func(w http.ResponseWriter, r *http.Request, body map[string]any) {
		s := startSSE(w)
		for i := 0; i < 8; i++ { // 8 × 100 ms: twice the timeout in all
			time.Sleep(100 * time.Millisecond)
			s.data(chunk(map[string]any{"content": "x"}, nil))
		}
		s.done()
	})
	const timeout = 400 * time.Millisecond
	m := Guarded(newClient(t, srv, func(cfg *Config) { cfg.IdleTimeout = timeout }), guardFor(timeout))
	resp, err := m.Stream(context.Background(), ragd.ChatRequest{Messages: []ragd.ChatMessage{{Role: ragd.RoleUser, Content: "q"}}}, nil)
	if err != nil || resp.Message.Content != "xxxxxxxx" {
		t.Fatalf("got %q, %v", resp.Message.Content, err)
	}
}

// A guarded completion ends at the guard's timeout, the only one it has.
func TestGuardedCompleteEndsAtTheGuardsTimeout(t *testing.T) {
	srv, _ := newServer(t, func(w http.ResponseWriter, r *http.Request, body map[string]any) {
		select {
		case <-r.Context().Done():
		case <-time.After(5 * time.Second):
		}
		writeJSON(w, 200, completion(map[string]any{"role": "assistant", "content": "late"}, "stop"))
	})
	m := Guarded(newClient(t, srv, func(cfg *Config) { cfg.IdleTimeout = 10 * time.Second }), guardFor(200*time.Millisecond))
	start := time.Now()
	_, err := m.Complete(context.Background(), ragd.ChatRequest{Messages: []ragd.ChatMessage{{Role: ragd.RoleUser, Content: "q"}}})
	if ragd.KindOf(err) != ragd.KindUnavailable || !errors.Is(err, context.DeadlineExceeded) || time.Since(start) > 3*time.Second {
		t.Fatalf("after %s: %v, want an unavailable llm that timed out", time.Since(start), err)
	}
}
