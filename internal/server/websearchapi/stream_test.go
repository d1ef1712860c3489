package websearchapi

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"time"

	"ragd/internal/adapter/websearch"
)

// stream GETs /stream?query and parses the events.
func stream(t *testing.T, srv *httptest.Server, query string) (*http.Response, []sseEvent) {
	t.Helper()
	resp, err := http.Get(srv.URL + "/stream?" + query)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	return resp, readSSE(t, resp.Body)
}

func checkSSEHeaders(t *testing.T, resp *http.Response) {
	t.Helper()
	h := resp.Header
	if resp.StatusCode != 200 || h.Get("Content-Type") != "text/event-stream" ||
		h.Get("Cache-Control") != "no-cache" || h.Get("X-Accel-Buffering") != "no" {
		t.Fatalf("HTTP %d, headers %v", resp.StatusCode, h)
	}
}

// onlyError checks the stream is a single error event and returns its message.
func onlyError(t *testing.T, events []sseEvent) string {
	t.Helper()
	var e streamError
	if len(events) != 1 || events[0].Event != "error" || json.Unmarshal([]byte(events[0].Data), &e) != nil || e.Message == "" {
		t.Fatalf("want one error event, got %+v", events)
	}
	return e.Message
}

func TestStreamEmitsEachResultThenEnd(t *testing.T) {
	fake := &fakeProvider{results: threeResults}
	srv := newTestServer(t, New(fake, Info{}, nil))
	resp, events := stream(t, srv, "topic=go+language&max_results=3")
	checkSSEHeaders(t, resp)
	if len(events) != 4 {
		t.Fatalf("got %d events: %+v", len(events), events)
	}
	for i, want := range threeResults {
		var got streamItem
		if events[i].Event != "message" || json.Unmarshal([]byte(events[i].Data), &got) != nil {
			t.Fatalf("event %d: %+v", i, events[i])
		}
		if got != (streamItem{Index: i, Title: want.Title, Link: want.Link, Snippet: want.Snippet}) {
			t.Fatalf("event %d = %+v", i, got)
		}
	}
	if events[3].Event != "end" || events[3].Data != `{"count":3}` {
		t.Fatalf("last event %+v", events[3])
	}
	if c := fake.callLog(); len(c) != 1 || c[0] != (fakeCall{"go language", 3}) {
		t.Fatalf("provider saw %+v", c)
	}
}

func TestStreamDefaultsAndAliases(t *testing.T) {
	fake := &fakeProvider{results: threeResults}
	srv := newTestServer(t, New(fake, Info{}, nil))
	if _, events := stream(t, srv, "query=golang"); len(events) != 4 {
		t.Fatalf("got %+v", events)
	}
	if c := fake.callLog(); c[0] != (fakeCall{"golang", websearch.DefaultMaxResults}) {
		t.Fatalf("provider saw %+v", c)
	}
}

func TestStreamNoResults(t *testing.T) {
	srv := newTestServer(t, New(&fakeProvider{}, Info{}, nil))
	_, events := stream(t, srv, "topic=zzqx")
	if len(events) != 1 || events[0].Event != "end" || events[0].Data != `{"count":0}` {
		t.Fatalf("got %+v", events)
	}
}

// restError GETs /stream?query, which must be answered with status and a
// JSON {"detail": …} body before any stream opens, and returns the detail.
func restError(t *testing.T, srv *httptest.Server, query string, status int) json.RawMessage {
	t.Helper()
	resp, err := http.Get(srv.URL + "/stream?" + query)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	var out struct{ Detail json.RawMessage }
	if resp.StatusCode != status || resp.Header.Get("Content-Type") != "application/json" ||
		json.Unmarshal(body, &out) != nil || out.Detail == nil {
		t.Fatalf("%q: HTTP %d %q %s, want %d with a JSON detail", query, resp.StatusCode, resp.Header.Get("Content-Type"), body, status)
	}
	return out.Detail
}

// Invalid parameters are a 422 in the REST API's shape, before the stream
// opens, not an SSE error event in a 200.
func TestStreamValidationErrors(t *testing.T) {
	fake := &fakeProvider{results: threeResults}
	srv := newTestServer(t, New(fake, Info{}, nil))
	for query, want := range map[string]struct{ param, typ, msg string }{
		"":                         {"topic", "missing", "missing topic"},
		"topic=+++":                {"topic", "missing", "missing topic"},
		"max_results=3":            {"topic", "missing", "missing topic"},
		"topic=go&max_results=abc": {"max_results", "type_error", "max_results must be an integer"},
		"topic=go&max_results=2.5": {"max_results", "type_error", "max_results must be an integer"},
		"topic=go&max_results=0":   {"max_results", "value_error", "max_results must be between 1 and 20"},
		"topic=go&max_results=21":  {"max_results", "value_error", "max_results must be between 1 and 20"},
	} {
		var detail []struct {
			Loc       []string
			Msg, Type string
		}
		if err := json.Unmarshal(restError(t, srv, query, http.StatusUnprocessableEntity), &detail); err != nil || len(detail) != 1 {
			t.Fatalf("%q: detail %+v (%v)", query, detail, err)
		}
		d := detail[0]
		if !reflect.DeepEqual(d.Loc, []string{"query", want.param}) || d.Type != want.typ || !strings.Contains(d.Msg, want.msg) {
			t.Errorf("%q: %+v, want loc [query %s] type %s msg ~%q", query, d, want.param, want.typ, want.msg)
		}
	}
	if n := len(fake.callLog()); n != 0 {
		t.Fatalf("provider called %d times", n)
	}
}

// No provider is a 503 before the stream opens; invalid parameters still
// come first.
func TestStreamNotConfigured(t *testing.T) {
	srv := newTestServer(t, New(nil, Info{}, nil))
	if d := restError(t, srv, "topic=golang", http.StatusServiceUnavailable); string(d) != `"web search is not configured (set SERPAPI_KEY or websearch.searxng_url)"` {
		t.Fatalf("detail %s", d)
	}
	restError(t, srv, "", http.StatusUnprocessableEntity)
}

func TestStreamProviderFailure(t *testing.T) {
	fail := &websearch.StatusError{Provider: "searxng", Status: 502, Message: "Bad Gateway"}
	srv := newTestServer(t, New(&fakeProvider{err: fail}, Info{}, nil))
	_, events := stream(t, srv, "topic=golang")
	if msg := onlyError(t, events); !strings.Contains(msg, "searxng answered HTTP 502") || strings.Contains(msg, "Bad Gateway") {
		t.Fatalf("message %q", msg)
	}
	srv = newTestServer(t, New(panickingProvider{}, Info{}, nil))
	if _, events := stream(t, srv, "topic=golang"); onlyError(t, events) != "internal error" {
		t.Fatalf("got %+v", events)
	}
}

func TestStreamCancelsProviderOnDisconnect(t *testing.T) {
	p := newBlockingProvider()
	s := New(p, Info{}, nil)
	handlerDone := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer close(handlerDone)
		s.ServeStream(w, r)
	}))
	defer srv.Close()

	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL+"/stream?topic=slow", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	checkSSEHeaders(t, resp) // headers arrive before the provider answers
	select {
	case <-p.started:
	case <-time.After(5 * time.Second):
		t.Fatal("provider never called")
	}
	cancel() // the client goes away
	for name, ch := range map[string]chan struct{}{"provider": p.cancelled, "handler": handlerDone} {
		select {
		case <-ch:
		case <-time.After(5 * time.Second):
			t.Fatalf("%s not cancelled after the client disconnected", name)
		}
	}
}

// flushCounter is a ResponseWriter that counts flushes.
type flushCounter struct {
	*httptest.ResponseRecorder
	flushes int
}

func (f *flushCounter) Flush() { f.flushes++; f.ResponseRecorder.Flush() }

func TestStreamFlushesEveryEvent(t *testing.T) {
	s := New(&fakeProvider{results: threeResults}, Info{}, nil)
	w := &flushCounter{ResponseRecorder: httptest.NewRecorder()}
	s.ServeStream(w, httptest.NewRequest(http.MethodGet, "/stream?topic=go", nil))
	// The opening comment, three results and end.
	if w.flushes != 5 {
		t.Fatalf("%d flushes, want 5; body:\n%s", w.flushes, w.Body)
	}
	if !strings.HasPrefix(w.Body.String(), ": ragd web search\n\n") {
		t.Fatalf("body %q", w.Body)
	}
}

// slowProvider answers after a delay, ignoring nothing.
type slowProvider struct{ fakeProvider }

func (p *slowProvider) Search(ctx context.Context, q string, max int) ([]websearch.Result, error) {
	select {
	case <-time.After(80 * time.Millisecond):
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	return p.fakeProvider.Search(ctx, q, max)
}

func TestStreamKeepAliveWhileWaiting(t *testing.T) {
	s := New(&slowProvider{fakeProvider{results: threeResults}}, Info{}, nil)
	s.keepAlive = 10 * time.Millisecond
	srv := newTestServer(t, s)
	resp, err := http.Get(srv.URL + "/stream?topic=go")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(body), ": keep-alive\n\n") {
		t.Fatalf("no keep-alive comment in %q", body)
	}
	if events := readSSE(t, strings.NewReader(string(body))); len(events) != 4 || events[3].Event != "end" {
		t.Fatalf("keep-alives disturbed the events: %+v", events)
	}
}

func TestStreamRejectsPost(t *testing.T) {
	srv := newTestServer(t, New(nil, Info{}, nil))
	resp, err := http.Post(srv.URL+"/stream?topic=go", "text/plain", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed {
		t.Fatalf("HTTP %d", resp.StatusCode)
	}
}
