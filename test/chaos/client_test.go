package chaos

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"ragd"
)

// client talks to the API replicas, preferring one and trying the other
// only when a connection fails (refused, reset, no answer): an answer,
// whatever its status, is never retried, so a 503 or 500 counts.
type client struct {
	urls []string
	next atomic.Uint32
	http *http.Client
}

func newClient(urls ...string) *client {
	return &client{urls: urls, http: &http.Client{Timeout: 90 * time.Second}}
}

// do sends the request to one replica, then the next on a connection
// error; it returns the status and body, or the last connection error.
func (c *client) do(method, path string, body any) (int, []byte, error) {
	var raw []byte
	if body != nil {
		raw, _ = json.Marshal(body)
	}
	start := int(c.next.Add(1))
	var lastErr error
	for i := range c.urls {
		req, err := http.NewRequest(method, c.urls[(start+i)%len(c.urls)]+path, bytes.NewReader(raw))
		if err != nil {
			return 0, nil, err
		}
		req.Header.Set("Content-Type", "application/json")
		resp, err := c.http.Do(req)
		if err != nil {
			lastErr = err
			continue
		}
		b, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			lastErr = err
			continue
		}
		return resp.StatusCode, b, nil
	}
	return 0, nil, lastErr
}

// must is do that fails the test unless the answer has status want; it
// decodes the body into out.
func (c *client) must(t *testing.T, method, path string, body any, want int, out any) {
	t.Helper()
	status, b, err := c.do(method, path, body)
	if err != nil || status != want {
		t.Fatalf("%s %s: %d %v %s", method, path, status, err, b)
	}
	if out != nil {
		if err := json.Unmarshal(b, out); err != nil {
			t.Fatalf("%s %s: %v: %s", method, path, err, b)
		}
	}
}

// job reads a job; false while ragd answers 503 (Redis failing over).
func (c *client) job(t *testing.T, id string) (ragd.Job, bool) {
	status, b, err := c.do(http.MethodGet, "/jobs/"+id, nil)
	var j ragd.Job
	switch {
	case err != nil || status == http.StatusServiceUnavailable:
		return j, false
	case status == http.StatusNotFound:
		t.Fatalf("job %s is gone: lost (%s)", id, b)
	case status != http.StatusOK:
		t.Fatalf("GET /jobs/%s: %d %s", id, status, b)
	}
	if err := json.Unmarshal(b, &j); err != nil {
		t.Fatal(err)
	}
	return j, true
}

// load searches a namespace without pause from a few goroutines, counting
// what it sent and what failed: a connection error on both replicas, a
// status other than 200, or no hits.
type load struct {
	c            *client
	kb           string
	done         chan struct{}
	wg           sync.WaitGroup
	sent, failed atomic.Int64
	mu           sync.Mutex
	firstErrors  []string
	once         sync.Once
}

var queries = []string{"memory model happens before", "garbage collector write barrier", "goroutine scheduler",
	"register allocation", "type checking of generic functions", "assembler directives"}

func startLoad(c *client, kb string, workers int) *load {
	l := &load{c: c, kb: kb, done: make(chan struct{})}
	for g := range workers {
		l.wg.Add(1)
		go l.run(g)
	}
	return l
}

func (l *load) run(g int) {
	defer l.wg.Done()
	for i := g; ; i++ {
		select {
		case <-l.done:
			return
		default:
		}
		body := map[string]any{"query": queries[i%len(queries)], "kb_name": l.kb, "top_k": 5}
		status, b, err := l.c.do(http.MethodPost, "/tools/rag_search", body)
		l.sent.Add(1)
		var res struct {
			Count int `json:"count"`
		}
		if err == nil && status == http.StatusOK {
			_ = json.Unmarshal(b, &res)
		}
		if err != nil || status != http.StatusOK || res.Count == 0 {
			l.failed.Add(1)
			l.mu.Lock()
			if len(l.firstErrors) < 5 {
				l.firstErrors = append(l.firstErrors, fmt.Sprintf("%q: %d %v %.300s", queries[i%len(queries)], status, err, b))
			}
			l.mu.Unlock()
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// counts are the requests sent and failed so far.
func (l *load) counts() (int64, int64) { return l.sent.Load(), l.failed.Load() }

// stop ends the load and waits for it; a second call does nothing.
func (l *load) stop() {
	l.once.Do(func() { close(l.done) })
	l.wg.Wait()
}
