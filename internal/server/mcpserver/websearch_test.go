package mcpserver_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"ragd/internal/testkit/stack"
)

// core_search_web is listed only when a provider is configured, and answers
// from it (an httptest server speaking SearXNG's JSON API stands in for one).
func TestSearchWebTool(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"results":[{"title":"Go 1.27 released","url":"https://go.dev/blog","content":"The Go team released Go 1.27 (%s)."}]}`, r.URL.Query().Get("q"))
	}))
	t.Cleanup(srv.Close)

	plain := stack.Start(t, stack.Config(t), false)
	for tool, err := range connectHTTP(t, plain, "", nil).Tools(t.Context(), nil) {
		if err != nil {
			t.Fatal(err)
		}
		if tool.Name == "core_search_web" {
			t.Fatal("core_search_web listed without a provider")
		}
	}

	cfg := stack.Config(t)
	cfg.WebSearch.SearXNGURL = srv.URL
	s := stack.Start(t, cfg, false)
	cs := connectHTTP(t, s, "", nil)
	var found *sdk.Tool
	for tool, err := range cs.Tools(t.Context(), nil) {
		if err != nil {
			t.Fatal(err)
		}
		if tool.Name == "core_search_web" {
			found = tool
		}
	}
	if found == nil || found.Annotations.OpenWorldHint == nil || !*found.Annotations.OpenWorldHint {
		t.Fatalf("core_search_web: %+v", found)
	}
	res, out := call(t, cs, "core_search_web", map[string]any{"query": "go release", "max_results": 3})
	results, _ := out["results"].([]any)
	if res.IsError || len(results) != 1 || results[0].(map[string]any)["link"] != "https://go.dev/blog" {
		t.Fatalf("core_search_web: %v %s", out, text(res))
	}
	if res, _ := call(t, cs, "core_search_web", map[string]any{"query": "x", "max_results": 99}); !res.IsError {
		t.Fatal("max_results 99 accepted")
	}
}
