package mcpserver_test

import (
	"encoding/json"
	"log/slog"
	"net/http"
	"ragd/internal/testkit/testenv"
	"strings"
	"testing"

	"ragd/internal/testkit/stack"
)

// One request type, one set of defaults and one validation: the same
// retrieval input gets the same answer over REST and MCP. Before the
// redesign MCP took top_k 0 as "default" while REST refused it.
func TestSameInputSameErrorOverRESTAndMCP(t *testing.T) {
	t.Parallel()
	s := stack.Start(t, stack.Config(t), false)
	cs := connectHTTP(t, s, "", nil)
	for _, args := range []map[string]any{
		{"query": "x", "top_k": 0},
		{"query": "x", "top_k": 21},
		{"query": "x", "mode": "telepathy"},
		{"query": "x", "kb_name": "Bad Name"},
		{"query": "x", "scope_filter": map[string]any{"source_types": []string{"exe"}}},
		{"query": "  "},
	} {
		rest := s.Do(t, http.MethodPost, "/tools/rag_search", args)
		var body struct {
			Detail []struct{ Msg string } `json:"detail"`
		}
		if rest.Status != http.StatusUnprocessableEntity || json.Unmarshal(rest.Body, &body) != nil || len(body.Detail) != 1 {
			t.Fatalf("REST %v: %d %s", args, rest.Status, rest.Body)
		}
		for _, tool := range []string{"core_retrieve_text", "core_query", "core_retrieve_visual"} {
			if tool == "core_retrieve_visual" && args["mode"] != nil {
				continue // pictures are found by hybrid search whatever the mode
			}
			res, _ := call(t, cs, tool, args)
			if !res.IsError || !strings.Contains(text(res), body.Detail[0].Msg) {
				t.Errorf("%s %v: isError %v %q, want REST's %q", tool, args, res.IsError, text(res), body.Detail[0].Msg)
			}
		}
	}
	// Absent top_k is the default over both.
	res, out := call(t, cs, "core_retrieve_text", map[string]any{"query": "anything"})
	if res.IsError || out["count"] == nil {
		t.Fatalf("default top_k: %s", text(res))
	}
}

// A failed tool call is logged with the tool's name and the error, since
// the agent is told the server has the details.
func TestToolFailuresAreLogged(t *testing.T) {
	t.Parallel()
	var logs testenv.Buffer
	s := stack.StartWithLogger(t, stack.Config(t), false, slog.New(slog.NewTextHandler(&logs, nil)))
	cs := connectHTTP(t, s, "", nil)
	if res, _ := call(t, cs, "core_job_status", map[string]any{"job_id": "no-such-job"}); !res.IsError {
		t.Fatal("want a tool error")
	}
	if res, _ := call(t, cs, "core_query", map[string]any{"query": "x", "top_k": 99}); !res.IsError {
		t.Fatal("want a tool error")
	}
	got := logs.String()
	for _, want := range []string{`msg="tool call failed" tool=core_job_status error="job \"no-such-job\" not found`,
		`msg="tool call failed" tool=core_query error="top_k must be between 1 and 20, not 99"`} {
		if !strings.Contains(got, want) {
			t.Errorf("log lacks %s:\n%s", want, got)
		}
	}
}
