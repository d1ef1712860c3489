package rerank_test

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"net/http/httptest"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"ragd"
	"ragd/internal/adapter/rerank"
	"ragd/internal/platform/resilience"
	"ragd/internal/testkit/standin"
)

// zebraFirst is the stand-ins' cross-encoder: texts naming more of the
// query's words score higher, so "zebra stripes" beats "zebra" beats none.
func zebraFirst(query, text string) float64 {
	n := 0.0
	for _, w := range strings.Fields(query) {
		if strings.Contains(text, w) {
			n++
		}
	}
	return n / 10
}

var texts = []string{"a horse in a field", "zebra crossing", "zebra stripes are black and white", "a striped shirt"}

// Each documented wire format: the client sends the format's request (the
// stand-in refuses any other member, and a Cohere call without model or
// key) to its path, and reads the answer — best first, possibly carrying
// documents, usage and ids — back into one score per text in input order.
func TestEveryWireFormat(t *testing.T) {
	for _, tc := range []struct {
		wire   standin.RerankWire
		format string
		model  string
		path   string
		want   map[string]any // request members beside query and the texts
		list   string
	}{
		{standin.WireTEI, rerank.FormatTEI, "", "/rerank", map[string]any{"raw_scores": false, "truncate": true}, "texts"},
		{standin.WireCohere, rerank.FormatCohere, "rerank-v3.5", "/v2/rerank", map[string]any{"model": "rerank-v3.5", "top_n": "4"}, "documents"},
		{standin.WireJina, rerank.FormatCohere, "jina-reranker-v2-base-multilingual", "/v1/rerank", map[string]any{"model": "jina-reranker-v2-base-multilingual", "top_n": "4"}, "documents"},
		{standin.WireVLLM, rerank.FormatCohere, "", "/v1/rerank", map[string]any{"top_n": "4"}, "documents"},
		{standin.WireLlamaCpp, rerank.FormatCohere, "", "/v1/rerank", map[string]any{"top_n": "4"}, "documents"},
	} {
		t.Run(string(tc.wire), func(t *testing.T) {
			srv := standin.NewReranker(t, tc.wire, zebraFirst)
			c, err := rerank.New(rerank.Config{Format: tc.format, BaseURL: srv.URL + "/", Model: tc.model, APIKey: "k-1"})
			if err != nil {
				t.Fatal(err)
			}
			scores, err := c.Rerank(context.Background(), "zebra stripes", texts)
			if err != nil {
				t.Fatal(err)
			}
			if want := []float64{0, 0.1, 0.2, 0}; !reflect.DeepEqual(scores, want) {
				t.Errorf("scores %v, want %v (input order)", scores, want)
			}
			reqs := srv.Requests()
			if len(reqs) != 1 {
				t.Fatalf("%d requests, want 1", len(reqs))
			}
			got := reqs[0]
			if got.Path != tc.path || got.Header.Get("Authorization") != "Bearer k-1" || got.Header.Get("Content-Type") != "application/json" {
				t.Errorf("path %q, auth %q, type %q", got.Path, got.Header.Get("Authorization"), got.Header.Get("Content-Type"))
			}
			want := map[string]any{"query": "zebra stripes", tc.list: toAny(texts)}
			for k, v := range tc.want {
				want[k] = v
			}
			if norm(got.Body) != norm(want) {
				t.Errorf("request body %s, want %s", norm(got.Body), norm(want))
			}
		})
	}
}

// An answer that does not score every text exactly once, or is not the
// format at all, is an error (the search then keeps its own order), and so
// are error statuses, with the server's message.
func TestMalformedAnswersAndErrors(t *testing.T) {
	for _, tc := range []struct {
		name, format string
		status       int
		body, want   string
	}{
		{"not json", rerank.FormatTEI, 200, "<html>oops</html>", "malformed"},
		{"object for tei", rerank.FormatTEI, 200, `{"results":[]}`, "malformed"},
		{"no results", rerank.FormatCohere, 200, `{"id":"x"}`, "no results"},
		{"too few", rerank.FormatCohere, 200, `{"results":[{"index":0,"relevance_score":0.5}]}`, "1 scores for 2 texts"},
		{"index twice", rerank.FormatTEI, 200, `[{"index":0,"score":1},{"index":0,"score":0.5}]`, "index 0 scored twice"},
		{"index out of range", rerank.FormatTEI, 200, `[{"index":0,"score":1},{"index":7,"score":0.5}]`, "valid index"},
		{"no index", rerank.FormatCohere, 200, `{"results":[{"relevance_score":1},{"index":1,"relevance_score":0}]}`, "valid index"},
		{"no score", rerank.FormatCohere, 200, `{"results":[{"index":0},{"index":1,"relevance_score":0}]}`, "no score for index 0"},
		{"infinite score", rerank.FormatTEI, 200, `[{"index":0,"score":1e999},{"index":1,"score":0}]`, "malformed"},
		{"server error", rerank.FormatTEI, 500, `{"error":"model overloaded","error_type":"Overloaded"}`, "HTTP 500: model overloaded"},
		{"vllm error", rerank.FormatCohere, 400, `{"error":{"message":"bad model","type":"BadRequestError"}}`, "HTTP 400: bad model"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := standin.NewReranker(t, standin.WireTEI, zebraFirst)
			srv.Misbehave(tc.status, tc.body, 0)
			c, err := rerank.New(rerank.Config{Format: tc.format, BaseURL: srv.URL})
			if err != nil {
				t.Fatal(err)
			}
			_, err = c.Rerank(context.Background(), "q", []string{"a", "b"})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one containing %q", err, tc.want)
			}
			if !rerank.IsTransient(err) {
				t.Errorf("%v does not count against the breaker", err)
			}
		})
	}
	if rerank.IsTransient(context.Canceled) {
		t.Error("the caller cancelling counts against the breaker")
	}
}

func TestConfigErrors(t *testing.T) {
	for cfg, want := range map[rerank.Config]string{
		{Format: "jina", BaseURL: "http://x"}:      `format must be tei or cohere, not "jina"`,
		{Format: rerank.FormatTEI}:                 `base URL "" is not an http(s) URL`,
		{Format: rerank.FormatTEI, BaseURL: "x:1"}: `base URL "x:1" is not an http(s) URL`,
	} {
		if _, err := rerank.New(cfg); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%+v: %v, want %q", cfg, err, want)
		}
	}
}

// Behind its guard, a reranker that keeps failing opens its breaker after
// the threshold: later calls fail at once as unavailable, without reaching
// the server. A slow one is cut off at the guard's timeout.
func TestGuardedBreakerAndTimeout(t *testing.T) {
	srv := standin.NewReranker(t, standin.WireTEI, zebraFirst)
	srv.Misbehave(http.StatusInternalServerError, `{"error":"down"}`, 0)
	c, _ := rerank.New(rerank.Config{Format: rerank.FormatTEI, BaseURL: srv.URL})
	policy := resilience.DefaultPolicy()
	policy.MaxRetries, policy.FailThreshold, policy.Timeout = 0, 2, 300*time.Millisecond
	g := rerank.Guarded(c, resilience.New("reranker", policy, rerank.IsTransient, resilience.Hooks{}))
	for range 4 {
		if _, err := g.Rerank(context.Background(), "q", []string{"a", "b"}); err == nil {
			t.Fatal("a failing reranker succeeded")
		}
	}
	if n := len(srv.Requests()); n != 2 {
		t.Errorf("the server saw %d calls, want 2 (the breaker opens after 2 failures)", n)
	}
	_, err := g.Rerank(context.Background(), "q", []string{"a", "b"})
	if re := (*ragd.Error)(nil); !errors.As(err, &re) || re.Kind != ragd.KindUnavailable || !strings.Contains(err.Error(), "circuit breaker is open") {
		t.Errorf("open breaker: %v", err)
	}

	slow := standin.NewReranker(t, standin.WireTEI, zebraFirst)
	slow.Misbehave(0, "", time.Minute)
	c, _ = rerank.New(rerank.Config{Format: rerank.FormatTEI, BaseURL: slow.URL})
	g = rerank.Guarded(c, resilience.New("reranker", policy, rerank.IsTransient, resilience.Hooks{}))
	done := make(chan error, 1)
	go func() { _, err := g.Rerank(context.Background(), "q", []string{"a", "b"}); done <- err }()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "did not answer within") {
			t.Errorf("slow reranker: %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("a slow reranker was not cut off by the guard's timeout")
	}
	if rerank.Guarded(nil, nil) != nil {
		t.Error("no reranker became one")
	}
}

func toAny(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}

// norm renders a decoded body comparably: numbers (json.Number) as their
// text, so top_n 4 and "4" compare equal.
func norm(m map[string]any) string {
	keys := slices.Sorted(maps.Keys(m))
	var b strings.Builder
	for _, k := range keys {
		fmt.Fprintf(&b, "%s=%v;", k, m[k])
	}
	return b.String()
}

// A reranker that cannot be reached is an error naming neither its URL nor
// its address (the text reaches the search's log and trace).
func TestNetworkErrorNamesNoURL(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close() // nothing listens there any more
	c, err := rerank.New(rerank.Config{Format: rerank.FormatTEI, BaseURL: url})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Rerank(context.Background(), "q", []string{"a", "b"})
	if err == nil || !rerank.IsTransient(err) || strings.Contains(err.Error(), strings.TrimPrefix(url, "http://")) || strings.Contains(err.Error(), "127.0.0.1") {
		t.Fatalf("err %v, want one naming no URL or address", err)
	}
}
