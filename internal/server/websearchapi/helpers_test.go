package websearchapi

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"ragd/internal/adapter/websearch"
)

// fakeProvider returns canned results or an error and records its calls.
type fakeProvider struct {
	mu      sync.Mutex
	results []websearch.Result
	err     error
	calls   []fakeCall
}

type fakeCall struct {
	query string
	max   int
}

func (f *fakeProvider) Name() string { return "fake" }

func (f *fakeProvider) Search(_ context.Context, query string, max int) ([]websearch.Result, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, fakeCall{query, max})
	if f.err != nil {
		return nil, f.err
	}
	return f.results[:min(len(f.results), max)], nil
}

func (f *fakeProvider) callLog() []fakeCall {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]fakeCall(nil), f.calls...)
}

// blockingProvider blocks until its ctx ends and records that it did.
type blockingProvider struct {
	started, cancelled chan struct{}
}

func newBlockingProvider() *blockingProvider {
	return &blockingProvider{started: make(chan struct{}), cancelled: make(chan struct{})}
}

func (b *blockingProvider) Name() string { return "blocking" }

func (b *blockingProvider) Search(ctx context.Context, _ string, _ int) ([]websearch.Result, error) {
	close(b.started)
	<-ctx.Done()
	close(b.cancelled)
	return nil, ctx.Err()
}

type panickingProvider struct{}

func (panickingProvider) Name() string { return "panicking" }

func (panickingProvider) Search(context.Context, string, int) ([]websearch.Result, error) {
	panic("provider bug")
}

var threeResults = []websearch.Result{
	{Title: "Go", Link: "https://go.dev/", Snippet: "Build simple, secure, scalable systems with Go."},
	{Title: "Go spec", Link: "https://go.dev/ref/spec", Snippet: "The Go Programming Language Specification"},
	{Title: "Effective Go", Link: "https://go.dev/doc/effective_go", Snippet: "Tips for writing clear, idiomatic Go code.\nSecond line."},
}

// newTestServer mounts s the way ragd does: POST / and GET /stream.
func newTestServer(t *testing.T, s *Server) *httptest.Server {
	t.Helper()
	mux := http.NewServeMux()
	mux.HandleFunc("/", s.ServeJSONRPC)
	mux.HandleFunc("/stream", s.ServeStream)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

// post sends body to the JSON-RPC endpoint.
func post(t *testing.T, srv *httptest.Server, body string) (*http.Response, []byte) {
	t.Helper()
	resp, err := http.Post(srv.URL+"/", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, b
}

// rpcReply is a decoded JSON-RPC response.
type rpcReply struct {
	JSONRPC string          `json:"jsonrpc"`
	Result  json.RawMessage `json:"result"`
	Error   *struct {
		Code    int             `json:"code"`
		Message string          `json:"message"`
		Data    json.RawMessage `json:"data"`
	} `json:"error"`
	ID json.RawMessage `json:"id"`
}

// call posts one request, checks the HTTP envelope and decodes the reply.
func call(t *testing.T, srv *httptest.Server, body string) rpcReply {
	t.Helper()
	resp, b := post(t, srv, body)
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "application/json" {
		t.Fatalf("HTTP %d %q for %s: %s", resp.StatusCode, resp.Header.Get("Content-Type"), body, b)
	}
	var r rpcReply
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatalf("reply %s: %v", b, err)
	}
	if r.JSONRPC != "2.0" || (r.Error == nil) == (r.Result == nil) {
		t.Fatalf("malformed reply %s", b)
	}
	return r
}

// sseEvent is one dispatched Server-Sent Event.
type sseEvent struct {
	Event, Data, ID string
}

// readSSE parses a text/event-stream as the HTML spec's algorithm does:
// lines split on CRLF, LF or CR; ":" starts a comment; "field: value" with
// one optional space stripped; data lines joined with "\n"; a blank line
// dispatches the event if it has data; an unnamed event is "message".
func readSSE(t *testing.T, r io.Reader) []sseEvent {
	t.Helper()
	var events []sseEvent
	var event, id string
	var data []string
	sc := bufio.NewScanner(r)
	sc.Split(scanSSELines)
	for sc.Scan() {
		line := sc.Text()
		if line == "" {
			if data != nil {
				name := event
				if name == "" {
					name = "message"
				}
				events = append(events, sseEvent{Event: name, Data: strings.Join(data, "\n"), ID: id})
			}
			event, data = "", nil
			continue
		}
		if strings.HasPrefix(line, ":") {
			continue
		}
		field, value, _ := strings.Cut(line, ":")
		value = strings.TrimPrefix(value, " ")
		switch field {
		case "event":
			event = value
		case "data":
			data = append(data, value)
		case "id":
			id = value
		case "retry":
		default: // unknown fields are ignored
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("reading stream: %v", err)
	}
	return events // an event without its blank line is dropped, as the spec says
}

// scanSSELines splits on CRLF, LF or CR.
func scanSSELines(data []byte, atEOF bool) (int, []byte, error) {
	for i, c := range data {
		switch c {
		case '\n':
			return i + 1, data[:i], nil
		case '\r':
			if i+1 < len(data) {
				if data[i+1] == '\n' {
					return i + 2, data[:i], nil
				}
				return i + 1, data[:i], nil
			}
			if atEOF {
				return i + 1, data[:i], nil
			}
			return 0, nil, nil // need to see whether LF follows
		}
	}
	if atEOF && len(data) > 0 {
		return len(data), data, nil
	}
	return 0, nil, nil
}

func TestSSEParserHandlesSpecCases(t *testing.T) {
	in := ": comment\r\n\r\ndata: a\r\ndata:b\revent: x\n\nid: 7\ndata\n\nevent: lost\n\ndata: tail"
	got := readSSE(t, strings.NewReader(in))
	want := []sseEvent{{"x", "a\nb", ""}, {"message", "", "7"}}
	if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] {
		t.Fatalf("got %+v, want %+v", got, want)
	}
}
