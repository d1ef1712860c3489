// Package switchover tests switching the live embedder of a running ragd:
// the real Redis and Weaviate, the worker, and an OpenAI-compatible
// stand-in embedder of another dimension.
package switchover

import (
	"bufio"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/weaviate/weaviate-go-client/v5/weaviate"

	"ragd/internal/platform/config"
	"ragd/internal/testkit/stack"
	"ragd/internal/testkit/standin"
	"ragd/internal/testkit/testenv"
	"ragd/wire"
)

// altDims is the stand-in's dimension, unlike GloVe's 100.
const altDims = 48

// fixture is a ragd with documents in two namespaces indexed by the
// default embedder, and a stand-in embedder under embedders: alt.
type fixture struct {
	s    *stack.Stack
	cfg  config.Config
	alt  *standin.Embeddings
	docs map[string][]string // namespace → the sentences indexed
}

// topics give each document words of its own, so a search finds it.
var topics = []string{"puffins", "basalt", "lighthouse", "glaciers", "saffron", "violins", "tides", "comets",
	"orchards", "falcons", "granite", "harbours", "lanterns", "meadows", "quarries", "reefs"}

func newFixture(t *testing.T, perNamespace int) *fixture {
	t.Helper()
	root := t.TempDir()
	cfg := stack.Config(t, root)
	cfg.Cache.Enabled = true
	alt := newStandin(t)
	cfg.Resilience.CircuitOpenFor = time.Second // a tripped breaker lets the copy retry soon
	cfg.Embedders = map[string]config.Embed{"alt": {Provider: "openai", BaseURL: alt.URL, Model: alt.Model, BatchSize: 2}}
	f := &fixture{s: stack.Start(t, cfg, true), cfg: cfg, alt: alt, docs: map[string][]string{}}
	for _, ns := range []string{"north", "south"} {
		dir := filepath.Join(root, ns)
		if err := os.Mkdir(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		for i := range perNamespace {
			topic := topics[i%len(topics)]
			text := fmt.Sprintf("Document %d of %s is about %s %d. The %s of %s are described here at length.", i, ns, topic, i, topic, ns)
			if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("%d.txt", i)), []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
			f.docs[ns] = append(f.docs[ns], text)
		}
		r := f.s.Do(t, http.MethodPost, "/tools/rag_index_directory", map[string]any{"directory_path": dir, "kb_name": ns})
		if r.Status != http.StatusAccepted {
			t.Fatalf("index %s: %d %s", dir, r.Status, r.Body)
		}
		if job := f.s.WaitJob(t, r.JSON["job_id"].(string), time.Minute); job.Status != "completed" {
			t.Fatalf("index %s: %+v", dir, job)
		}
		// The switch copies from what Weaviate holds: the sources go.
		if err := os.RemoveAll(dir); err != nil {
			t.Fatal(err)
		}
	}
	return f
}

// newStandin is the alt embedder: OpenAI's wire format, altDims vectors.
func newStandin(t *testing.T) *standin.Embeddings {
	return standin.NewEmbeddings(t, "alt-embed", altDims)
}

// status is GET /embedder.
func (f *fixture) status(t *testing.T, s *stack.Stack) wire.EmbedderStatus {
	t.Helper()
	r := s.Do(t, http.MethodGet, "/embedder", nil)
	if r.Status != http.StatusOK {
		t.Fatalf("GET /embedder: %d %s", r.Status, r.Body)
	}
	var st wire.EmbedderStatus
	if err := json.Unmarshal(r.Body, &st); err != nil {
		t.Fatal(err)
	}
	return st
}

// start asks for a switch to name and returns its job id.
func (f *fixture) start(t *testing.T, name string) string {
	t.Helper()
	r := f.s.Do(t, http.MethodPost, "/embedder/switch", map[string]any{"to": name})
	if r.Status != http.StatusAccepted {
		t.Fatalf("POST /embedder/switch %s: %d %s", name, r.Status, r.Body)
	}
	return r.JSON["job_id"].(string)
}

// search runs a hybrid rag_search and returns its texts, or the failure.
func search(s *stack.Stack, t *testing.T, ns, query, mode string) ([]string, error) {
	r := s.Do(t, http.MethodPost, "/tools/rag_search", map[string]any{"query": query, "kb_name": ns, "mode": mode, "top_k": 3})
	if r.Status != http.StatusOK {
		return nil, fmt.Errorf("%d %s", r.Status, r.Body)
	}
	var resp wire.SearchResponse
	if err := json.Unmarshal(r.Body, &resp); err != nil {
		return nil, err
	}
	out := make([]string, len(resp.Results))
	for i, res := range resp.Results {
		out[i] = res.Text
	}
	return out, nil
}

// documentID is the id of the document a keyword search for word finds
// first in ns.
func (f *fixture) documentID(t *testing.T, ns, word string) string {
	t.Helper()
	r := f.s.Do(t, http.MethodPost, "/tools/rag_search", map[string]any{"query": word, "kb_name": ns, "mode": "keyword", "top_k": 1})
	var resp wire.SearchResponse
	if err := json.Unmarshal(r.Body, &resp); err != nil || len(resp.Results) == 0 {
		t.Fatalf("search %s in %s: %d %s", word, ns, r.Status, r.Body)
	}
	return resp.Results[0].DocumentID
}

// exportHeader is the first line of the namespace's export: what made it
// and its vectors' embedder.
func exportHeader(t *testing.T, s *stack.Stack, ns string) string {
	t.Helper()
	resp, err := http.Get(s.URL + "/kb/" + ns + "/export")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	zr, err := gzip.NewReader(resp.Body)
	if err != nil {
		t.Fatalf("export of %s: %d, %v", ns, resp.StatusCode, err)
	}
	line, err := bufio.NewReader(zr).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	return line
}

// load searches both namespaces without pause until stopped, counting
// searches and failures (with the first failures' texts).
type load struct {
	stop     chan struct{}
	wg       sync.WaitGroup
	searches atomic.Int64
	mu       sync.Mutex
	failures []string
}

func startLoad(t *testing.T, s *stack.Stack) *load {
	l := &load{stop: make(chan struct{})}
	for w := range 2 {
		l.wg.Add(1)
		go func() {
			defer l.wg.Done()
			for i := 0; ; i++ {
				select {
				case <-l.stop:
					return
				default:
				}
				ns := []string{"north", "south"}[(i+w)%2]
				mode := []string{"hybrid", "vector", "keyword"}[i%3]
				if _, err := search(s, t, ns, topics[i%len(topics)], mode); err != nil {
					l.mu.Lock()
					l.failures = append(l.failures, err.Error())
					l.mu.Unlock()
				}
				l.searches.Add(1)
			}
		}()
	}
	return l
}

func (l *load) end() (int64, []string) {
	close(l.stop)
	l.wg.Wait()
	return l.searches.Load(), l.failures
}

// collectionExists asks Weaviate whether class exists.
func collectionExists(t *testing.T, class string) bool {
	t.Helper()
	u := testenv.WeaviateURL(t)
	client, err := weaviate.NewClient(weaviate.Config{Host: u[len("http://"):], Scheme: "http"})
	if err != nil {
		t.Fatal(err)
	}
	ok, err := client.Schema().ClassExistenceChecker().WithClassName(class).Do(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return ok
}

// waitFor polls cond until it holds or timeout passes.
func waitFor(t *testing.T, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %s", what, timeout)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
