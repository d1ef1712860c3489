package stack

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"testing"
	"time"

	"ragd"
)

// Response is an HTTP answer with its decoded JSON body.
type Response struct {
	Status int
	Header http.Header
	Body   []byte
	JSON   map[string]any
}

// Do sends method path with body (a value encoded as JSON, or raw []byte).
func (s *Stack) Do(t testing.TB, method, path string, body any) Response {
	t.Helper()
	var r io.Reader
	switch b := body.(type) {
	case nil:
	case []byte:
		r = bytes.NewReader(b)
	default:
		raw, err := json.Marshal(b)
		if err != nil {
			t.Fatal(err)
		}
		r = bytes.NewReader(raw)
	}
	req, err := http.NewRequest(method, s.URL+path, r)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	out := Response{Status: resp.StatusCode, Header: resp.Header}
	out.Body, _ = io.ReadAll(resp.Body)
	_ = json.Unmarshal(out.Body, &out.JSON)
	return out
}

// WaitJob polls GET /jobs/{id} until the job ends or timeout passes.
func (s *Stack) WaitJob(t testing.TB, id string, timeout time.Duration) ragd.Job {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		resp := s.Do(t, http.MethodGet, "/jobs/"+id, nil)
		if resp.Status != http.StatusOK {
			t.Fatalf("GET /jobs/%s: %d %s", id, resp.Status, resp.Body)
		}
		var job ragd.Job
		if err := json.Unmarshal(resp.Body, &job); err != nil {
			t.Fatal(err)
		}
		if job.Status.Terminal() {
			return job
		}
		if time.Now().After(deadline) {
			t.Fatalf("job %s still %s after %s: %s", id, job.Status, timeout, resp.Body)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// ChunkCount is the number of chunks stored for a document (or, with docID
// empty, a whole namespace).
func (s *Stack) ChunkCount(t testing.TB, ns, docID string) int {
	t.Helper()
	n, err := s.Library.Store.Count(context.Background(), ns, docID)
	if err != nil {
		t.Fatal(err)
	}
	return n
}
