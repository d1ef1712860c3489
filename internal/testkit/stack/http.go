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
	return s.DoAs(t, "", method, path, body)
}

// DoAs is Do with token as the bearer key ("" for none).
func (s *Stack) DoAs(t testing.TB, token, method, path string, body any) Response {
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
	return s.DoRaw(t, method, path, "application/json", token, r)
}

// DoRaw sends body with the Content-Type given ("" for none), and token
// as the bearer key ("" for none).
func (s *Stack) DoRaw(t testing.TB, method, path, contentType, token string, body io.Reader) Response {
	t.Helper()
	req, err := http.NewRequest(method, s.URL+path, body)
	if err != nil {
		t.Fatal(err)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
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

// Bearer is a transport sending token as every request's bearer key, for
// clients (MCP's) that take an http.Client.
func Bearer(token string) http.RoundTripper { return bearer{token, http.DefaultTransport} }

type bearer struct {
	token string
	next  http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.next.RoundTrip(r)
}

// Vocabulary is a namespace's word counts as query expansion reads them:
// word → chunks holding it, and " chunks" → chunks counted.
func (s *Stack) Vocabulary(t testing.TB, kb string) map[string]int {
	t.Helper()
	st, err := s.Library.Versions.Vocab.Load(context.Background(), kb, s.Library.Registry.CurrentHashes)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]int{" chunks": st.Chunks()}
	for _, w := range st.Words() {
		out[w] = st.DF(w)
	}
	return out
}
