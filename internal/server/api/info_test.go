package api_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"

	"ragd"
	"ragd/internal/platform/kv"
	"ragd/internal/server/api"
	"ragd/internal/testkit/stack"
)

func newPageServer(t *testing.T, pages map[string]string) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		page, ok := pages[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = io.WriteString(w, page)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

func TestInfoHealthAndMonitoring(t *testing.T) {
	t.Parallel()
	s := stack.Start(t, stack.Config(t), false)
	resp := s.Do(t, http.MethodGet, "/", nil)
	if resp.Status != 200 || str(resp.JSON, "name") != "ragd" || str(resp.JSON, "version") != ragd.Version || str(resp.JSON, "description") == "" {
		t.Fatalf("GET /: %d %s", resp.Status, resp.Body)
	}
	resp = s.Do(t, http.MethodGet, "/health", nil)
	comps, _ := resp.JSON["components"].(map[string]any)
	if resp.Status != 200 || str(resp.JSON, "status") != "healthy" || comps["redis"] != true || comps["weaviate"] != true || comps["embedder"] != true {
		t.Fatalf("GET /health: %d %s", resp.Status, resp.Body)
	}
	// No chat model or web search configured: their breakers are not listed.
	breakers, _ := resp.JSON["breakers"].(map[string]any)
	if breakers["weaviate"] != "closed" || breakers["embedder"] != "closed" || breakers["llm"] != nil || breakers["websearch"] != nil {
		t.Errorf("breakers without llm or web search configured: %v", breakers)
	}
	mon := s.Do(t, http.MethodGet, "/monitoring/", nil)
	if mon.Status != 200 || !strings.Contains(string(mon.Body), "<html") {
		t.Fatalf("GET /monitoring/: %d %.200s", mon.Status, mon.Body)
	}
	queues := s.Do(t, http.MethodGet, "/monitoring/api/queues", nil)
	if queues.Status != 200 {
		t.Fatalf("asynqmon API: %d %s", queues.Status, queues.Body)
	}
}

// With Redis unreachable /health answers 503 and names the failing component.
func TestHealthReportsFailingComponent(t *testing.T) {
	t.Parallel()
	s := stack.Start(t, stack.Config(t), false)
	dead := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1", MaxRetries: -1})
	t.Cleanup(func() { _ = dead.Close() })
	probe := *s.Probe
	probe.Redis = kv.New(dead)
	services := s.APIServices()
	services.Health = &probe
	srv := httptest.NewServer(api.New(services, api.Options{MaxBodyBytes: 1 << 20, Log: stack.Logger(t)}))
	t.Cleanup(srv.Close)
	resp, err := http.Get(srv.URL + "/health")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 503 || !strings.Contains(string(body), `"status":"unhealthy"`) ||
		!strings.Contains(string(body), `"redis":false`) || !strings.Contains(string(body), `"weaviate":true`) {
		t.Fatalf("health with Redis down: %d %s", resp.StatusCode, body)
	}
}
