package standin

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"ragd/internal/testkit/wordvec"
)

// Embeddings is a stand-in OpenAI-compatible embedding server: POST
// /v1/embeddings {model, input: [texts]} → {object: "list", data:
// [{object: "embedding", index, embedding}], model, usage}, as OpenAI
// documents it. Its vectors are wordvec's, of the dimension asked, so
// texts sharing words are near. A test can make it slow, rate-limit it
// (429 with Retry-After) or take it down (503).
type Embeddings struct {
	URL   string // base URL, ending in /v1
	Model string

	dims  int
	vec   *wordvec.Embedder
	delay atomic.Int64 // per request, nanoseconds
	// limited answers the next so many requests 429 with Retry-After.
	limited    atomic.Int64
	retryAfter atomic.Int64 // seconds
	down       atomic.Bool
	// gate, while paused, holds every request until Resume.
	gateMu sync.Mutex
	gate   chan struct{}

	mu       sync.Mutex
	requests int
	texts    int
	refused  int
	arrivals []time.Time
}

// NewEmbeddings starts a stand-in of dims dimensions, stopped when the
// test ends.
func NewEmbeddings(t testing.TB, model string, dims int) *Embeddings {
	e := &Embeddings{Model: model, dims: dims, vec: wordvec.New(dims)}
	srv := httptest.NewServer(http.HandlerFunc(e.serve))
	t.Cleanup(srv.Close)
	e.URL = srv.URL + "/v1"
	return e
}

// SetDelay makes every request take d longer.
func (e *Embeddings) SetDelay(d time.Duration) { e.delay.Store(int64(d)) }

// RateLimit answers the next n requests 429 Too Many Requests with
// Retry-After: seconds.
func (e *Embeddings) RateLimit(n, seconds int) {
	e.retryAfter.Store(int64(seconds))
	e.limited.Store(int64(n))
}

// Pause holds every request that arrives from now on until Resume.
func (e *Embeddings) Pause() {
	e.gateMu.Lock()
	defer e.gateMu.Unlock()
	if e.gate == nil {
		e.gate = make(chan struct{})
	}
}

// Resume lets the held requests and all later ones through.
func (e *Embeddings) Resume() {
	e.gateMu.Lock()
	defer e.gateMu.Unlock()
	if e.gate != nil {
		close(e.gate)
		e.gate = nil
	}
}

// SetDown makes every request fail with 503 until set back.
func (e *Embeddings) SetDown(down bool) { e.down.Store(down) }

// Arrivals are the times the well-formed requests so far arrived, before
// any pause or delay, in order.
func (e *Embeddings) Arrivals() []time.Time {
	e.mu.Lock()
	defer e.mu.Unlock()
	return slices.Clone(e.arrivals)
}

// Counts are the requests answered, the texts embedded and the requests
// refused (429 or 503).
func (e *Embeddings) Counts() (requests, texts, refused int) {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.requests, e.texts, e.refused
}

func (e *Embeddings) serve(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.URL.Path != "/v1/embeddings" {
		http.Error(w, `{"error":{"message":"not found"}}`, http.StatusNotFound)
		return
	}
	var req struct {
		Model string   `json:"model"`
		Input []string `json:"input"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil || len(req.Input) == 0 {
		http.Error(w, `{"error":{"message":"input must be a non-empty array of strings"}}`, http.StatusBadRequest)
		return
	}
	e.mu.Lock()
	e.arrivals = append(e.arrivals, time.Now())
	e.mu.Unlock()
	e.gateMu.Lock()
	gate := e.gate
	e.gateMu.Unlock()
	if gate != nil {
		select {
		case <-gate:
		case <-r.Context().Done():
			return
		}
	}
	if d := time.Duration(e.delay.Load()); d > 0 {
		select {
		case <-time.After(d):
		case <-r.Context().Done():
			return
		}
	}
	if e.refuse(w) {
		return
	}
	vectors, _ := e.vec.Embed(context.Background(), req.Input)
	type item struct {
		Object    string    `json:"object"`
		Index     int       `json:"index"`
		Embedding []float32 `json:"embedding"`
	}
	data := make([]item, len(vectors))
	for i, v := range vectors {
		data[i] = item{Object: "embedding", Index: i, Embedding: v}
	}
	e.mu.Lock()
	e.requests++
	e.texts += len(req.Input)
	e.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{"object": "list", "data": data, "model": e.Model,
		"usage": map[string]int{"prompt_tokens": 0, "total_tokens": 0}})
}

// refuse answers a request the stand-in is told to refuse.
func (e *Embeddings) refuse(w http.ResponseWriter) bool {
	status := 0
	switch {
	case e.down.Load():
		status = http.StatusServiceUnavailable
	case e.limited.Add(-1) >= 0:
		status = http.StatusTooManyRequests
		w.Header().Set("Retry-After", strconv.FormatInt(e.retryAfter.Load(), 10))
	default:
		e.limited.Store(0)
		return false
	}
	e.mu.Lock()
	e.refused++
	e.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write([]byte(`{"error":{"message":"` + http.StatusText(status) + `"}}`))
	return true
}
