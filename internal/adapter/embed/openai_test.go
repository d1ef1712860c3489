package embed

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"ragd"
)

var _ ragd.Embedder = (*OpenAI)(nil)

// fakeEmbeddingsAPI is a stand-in for a hosted embedding API (OpenAI's
// POST /v1/embeddings, which Ollama and vLLM copy): it speaks the same wire
// format, embeds each input as a vector encoding its text, and answers the
// data array shuffled to prove the client orders by index.
type fakeEmbeddingsAPI struct {
	dim int

	mu       sync.Mutex
	requests int
	batches  []int
	auth     []string
}

func (f *fakeEmbeddingsAPI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.URL.Path != "/v1/embeddings" {
		http.Error(w, `{"error":{"message":"not found"}}`, http.StatusNotFound)
		return
	}
	var req struct {
		Model string   `json:"model"`
		Input []string `json:"input"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil || req.Model == "" {
		http.Error(w, `{"error":{"message":"bad request"}}`, http.StatusBadRequest)
		return
	}
	f.mu.Lock()
	f.requests++
	f.batches = append(f.batches, len(req.Input))
	f.auth = append(f.auth, r.Header.Get("Authorization"))
	f.mu.Unlock()
	type item struct {
		Object    string    `json:"object"`
		Embedding []float32 `json:"embedding"`
		Index     int       `json:"index"`
	}
	data := make([]item, len(req.Input))
	for i, text := range req.Input {
		data[i] = item{"embedding", textVector(text, f.dim), i}
	}
	rand.Shuffle(len(data), func(i, j int) { data[i], data[j] = data[j], data[i] })
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{"object": "list", "data": data, "model": req.Model,
		"usage": map[string]int{"prompt_tokens": 1, "total_tokens": 1}})
}

// textVector encodes a text's length in the first component, so tests can
// check which vector came back for which input.
func textVector(text string, dim int) []float32 {
	v := make([]float32, dim)
	v[0] = float32(len(text))
	return v
}

func newFake(t *testing.T, dim int) (*fakeEmbeddingsAPI, *httptest.Server) {
	f := &fakeEmbeddingsAPI{dim: dim}
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	return f, srv
}

func TestOpenAIBatchingAndOrder(t *testing.T) {
	f, srv := newFake(t, 8)
	o, err := NewOpenAI(OpenAIConfig{BaseURL: srv.URL + "/v1/", Model: "text-embedding-3-small", APIKey: "sk-test", Dimension: 8, BatchSize: 64})
	if err != nil {
		t.Fatal(err)
	}
	if o.Name() != "openai:text-embedding-3-small" || o.Dimension() != 8 {
		t.Fatalf("Name %q Dimension %d", o.Name(), o.Dimension())
	}
	texts := make([]string, 150)
	for i := range texts {
		texts[i] = strings.Repeat("x", i+1)
	}
	vecs, err := o.Embed(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(f.batches) != "[64 64 22]" {
		t.Errorf("batches = %v, want [64 64 22]", f.batches)
	}
	if len(vecs) != len(texts) {
		t.Fatalf("%d vectors for %d texts", len(vecs), len(texts))
	}
	for i, v := range vecs {
		if len(v) != 8 || v[0] != float32(len(texts[i])) {
			t.Fatalf("vector %d belongs to another input: %v", i, v)
		}
	}
	for _, a := range f.auth {
		if a != "Bearer sk-test" {
			t.Fatalf("Authorization = %q", a)
		}
	}
}

func TestOpenAINoKeyNoAuthHeader(t *testing.T) {
	f, srv := newFake(t, 4)
	o, err := NewOpenAI(OpenAIConfig{BaseURL: srv.URL + "/v1", Model: "nomic-embed-text"})
	if err != nil {
		t.Fatal(err)
	}
	if o.Dimension() != 0 {
		t.Fatalf("Dimension before probe = %d", o.Dimension())
	}
	if err := o.Probe(context.Background()); err != nil {
		t.Fatal(err)
	}
	if o.Dimension() != 4 {
		t.Fatalf("Dimension after probe = %d, want 4", o.Dimension())
	}
	if f.requests != 1 || f.auth[0] != "" {
		t.Fatalf("requests %d, Authorization %q", f.requests, f.auth)
	}
	if v, err := o.Embed(context.Background(), nil); err != nil || len(v) != 0 || f.requests != 1 {
		t.Fatalf("empty Embed: %v %v, %d requests", v, err, f.requests)
	}
}

func TestOpenAIWrongDimension(t *testing.T) {
	_, srv := newFake(t, 4)
	o, err := NewOpenAI(OpenAIConfig{BaseURL: srv.URL + "/v1", Model: "m", Dimension: 1536})
	if err != nil {
		t.Fatal(err)
	}
	err = o.Probe(context.Background())
	if err == nil || !strings.Contains(err.Error(), "want 1536") {
		t.Fatalf("err = %v, want a dimension error", err)
	}
	if IsTransient(err) {
		t.Error("a dimension mismatch is not transient")
	}
}

// statusServer answers every request with status and body.
func statusServer(t *testing.T, status int, body string) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		fmt.Fprint(w, body)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

func TestOpenAIErrors(t *testing.T) {
	cases := []struct {
		name      string
		status    int
		body      string
		message   string
		transient bool
	}{
		{"unauthorized", 401, `{"error":{"message":"Incorrect API key provided: sk-bad","type":"invalid_request_error","code":"invalid_api_key"}}`, "Incorrect API key provided", false},
		{"bad request", 400, `{"error":{"message":"'$.input' is invalid"}}`, "is invalid", false},
		{"no model", 404, `{"error":"model \"nomic\" not found, try pulling it first"}`, "try pulling it first", false},
		{"rate limited", 429, `{"error":{"message":"Rate limit reached"}}`, "Rate limit reached", true},
		{"server error", 500, `internal error`, "internal error", true},
		{"unavailable", 503, ``, "Service Unavailable", true},
		{"malformed", 200, `{"data":[{"embedding":"nope"`, "malformed", false},
		{"count mismatch", 200, `{"data":[]}`, "0 vectors for 1 inputs", false},
		{"bad index", 200, `{"data":[{"embedding":[1,2],"index":7}]}`, "index 7", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			o, err := NewOpenAI(OpenAIConfig{BaseURL: statusServer(t, c.status, c.body), Model: "m", APIKey: "sk-bad"})
			if err != nil {
				t.Fatal(err)
			}
			_, err = o.Embed(context.Background(), []string{"hello"})
			if err == nil {
				t.Fatal("no error")
			}
			if !strings.Contains(err.Error(), c.message) {
				t.Errorf("error %q lacks %q", err, c.message)
			}
			if c.status >= 400 && !strings.Contains(err.Error(), fmt.Sprint(c.status)) {
				t.Errorf("error %q lacks the status", err)
			}
			if IsTransient(err) != c.transient {
				t.Errorf("IsTransient(%v) = %v, want %v", err, IsTransient(err), c.transient)
			}
		})
	}
}

// A body that names no message is quoted cut on a character boundary: the
// error's text stays valid UTF-8 (it goes into JSON job records and logs).
func TestOpenAIErrorExcerptIsValidUTF8(t *testing.T) {
	o, err := NewOpenAI(OpenAIConfig{BaseURL: statusServer(t, 502, "x"+strings.Repeat("é", 300)), Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	_, err = o.Embed(context.Background(), []string{"hello"})
	if err == nil || !utf8.ValidString(err.Error()) || !strings.HasSuffix(err.Error(), "…") || !IsTransient(err) {
		t.Fatalf("err %q (valid UTF-8 %v), want a transient error quoting a valid excerpt", err, err != nil && utf8.ValidString(err.Error()))
	}
}

func TestOpenAITimeoutIsTransient(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-release:
		}
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(release) })
	o, err := NewOpenAI(OpenAIConfig{BaseURL: srv.URL, Model: "m", Dimension: 4})
	if err != nil {
		t.Fatal(err)
	}
	// The caller's deadline (in ragd the guard's embed.timeout) bounds it.
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	_, err = o.Embed(ctx, []string{"slow"})
	if err == nil || !IsTransient(err) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want a transient timeout", err)
	}
}

func TestOpenAITransientClassification(t *testing.T) {
	// Nothing listens on a just-closed server: a network error.
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close()
	o, err := NewOpenAI(OpenAIConfig{BaseURL: url, Model: "m", Dimension: 4})
	if err != nil {
		t.Fatal(err)
	}
	_, err = o.Embed(context.Background(), []string{"x"})
	if err == nil || !IsTransient(err) {
		t.Errorf("connection refused: err = %v, transient %v", err, IsTransient(err))
	}

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := o.Embed(ctx, []string{"x"}); !errors.Is(err, context.Canceled) || IsTransient(err) {
		t.Errorf("cancelled: err = %v, transient %v", err, IsTransient(err))
	}
	if IsTransient(nil) || IsTransient(errors.New("plain")) {
		t.Error("nil and plain errors are not transient")
	}
}

func TestNewOpenAIValidates(t *testing.T) {
	for _, cfg := range []OpenAIConfig{
		{BaseURL: "", Model: "m"},
		{BaseURL: "ftp://x/v1", Model: "m"},
		{BaseURL: "http://localhost:11434/v1", Model: ""},
		{BaseURL: "http://localhost:11434/v1", Model: "m", Dimension: -1},
	} {
		if _, err := NewOpenAI(cfg); err == nil {
			t.Errorf("%+v: no error", cfg)
		}
	}
}
