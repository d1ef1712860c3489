package mcpserver_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"ragd/internal/server/mcpserver"
	"ragd/internal/testkit/collector"
	"ragd/internal/testkit/stack"
)

// traceHeader sends a W3C traceparent with every HTTP request, as an
// instrumented HTTP client would.
type traceHeader struct{ parent string }

func (h traceHeader) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("traceparent", h.parent)
	return http.DefaultTransport.RoundTrip(r)
}

// A tool call is one span, continuing the trace the client names in the
// call's _meta (traceparent, as the MCP specification documents it); a
// call without _meta continues its HTTP request's traceparent, and is
// answered by the fast path, which passes the same wrapper. Under each:
// the search's plan, cache lookup, embedding and retrieval, and no span
// carries the query or the passage.
func TestToolCallTrace(t *testing.T) {
	t.Parallel()
	const (
		agentTrace = "0af7651916cd43dd8448eb211c80319c"
		agentSpan  = "b7ad6b7169203331"
		httpTrace  = "5b8efff798038103d269b633813fc60c"
		httpSpan   = "eee19b7ec3c1b174"
	)
	col := collector.Start(t)
	cfg := stack.Config(t)
	cfg.Telemetry.OTLPEndpoint = col.URL()
	s := stack.Start(t, cfg, true)
	if r := s.Do(t, http.MethodPost, "/tools/rag_index", map[string]any{"text": "The lighthouse keeper polished the brass lens every evening.",
		"kb_name": "harbour", "wait": true}); r.Status != http.StatusOK {
		t.Fatalf("rag_index: %d %s", r.Status, r.Body)
	}
	client := sdk.NewClient(&sdk.Implementation{Name: "agent", Version: "1"}, nil)
	cs, err := client.Connect(t.Context(), &sdk.StreamableClientTransport{Endpoint: s.URL + "/mcp",
		HTTPClient: &http.Client{Transport: traceHeader{"00-" + httpTrace + "-" + httpSpan + "-01"}}},
		&sdk.ClientSessionOptions{ProtocolVersion: "2025-11-25"}) // one the fast path answers
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	args := map[string]any{"query": "brass lens keeper", "kb_name": "harbour"}
	res, err := cs.CallTool(t.Context(), &sdk.CallToolParams{Name: "core_retrieve_text", Arguments: args,
		Meta: sdk.Meta{"traceparent": "00-" + agentTrace + "-" + agentSpan + "-01"}})
	if err != nil || res.IsError {
		t.Fatalf("core_retrieve_text with _meta: %v %v", err, res)
	}
	fast := mcpserver.FastCallsServed(s.MCP)
	if res, err := cs.CallTool(t.Context(), &sdk.CallToolParams{Name: "core_retrieve_text", Arguments: args}); err != nil || res.IsError {
		t.Fatalf("core_retrieve_text: %v %v", err, res)
	}
	if mcpserver.FastCallsServed(s.MCP) != fast+1 {
		t.Fatalf("the plain call did not take the fast path")
	}
	var spans []collector.Span
	col.Wait(t, time.Minute, func([]collector.Span) bool {
		_ = s.Telemetry.ForceFlush(context.Background())
		spans = col.Spans()
		return len(collector.Named(collector.Trace(spans, agentTrace), "tools/call core_retrieve_text")) == 1 &&
			len(collector.Named(collector.Trace(spans, httpTrace), "tools/call core_retrieve_text")) == 1
	})
	for _, c := range []struct{ trace, parent, via string }{{agentTrace, agentSpan, "_meta"}, {httpTrace, httpSpan, "the HTTP header"}} {
		trace := collector.Trace(spans, c.trace)
		t.Logf("the call whose parent came by %s:\n%s", c.via, collector.Tree(trace))
		calls := collector.Named(trace, "tools/call core_retrieve_text")
		call := calls[0]
		if call.ParentID != c.parent || call.Kind != "SERVER" {
			t.Errorf("via %s: the call's parent %s kind %s, want %s, a server span", c.via, call.ParentID, call.Kind, c.parent)
		}
		for k, v := range map[string]string{"ragd.tool": "core_retrieve_text", "gen_ai.tool.name": "core_retrieve_text",
			"mcp.method.name": "tools/call", "ragd.namespace": "harbour", "ragd.search.mode": "hybrid", "ragd.search.top_k": "5", "ragd.status": "ok"} {
			if call.Attrs[k] != v {
				t.Errorf("via %s: %s = %q, want %q", c.via, k, call.Attrs[k], v)
			}
		}
		kids := collector.Children(trace, call)
		for _, name := range []string{"search.plan", "cache.lookup"} {
			if len(collector.Named(kids, name)) != 1 {
				t.Errorf("via %s: no %s under the call", c.via, name)
			}
		}
		if c.via == "_meta" && len(collector.Named(kids, "search.retrieve")) != 1 {
			t.Errorf("via %s: no search.retrieve under the first call", c.via)
		}
	}
	if n := len(collector.Named(spans, "tools/call core_retrieve_text")); n != 2 {
		t.Errorf("%d tool call spans, want one per call", n)
	}
	for _, sp := range spans {
		for k, v := range sp.Attrs {
			if strings.Contains(v, "brass") || strings.Contains(v, "lighthouse") {
				t.Errorf("span %s attribute %s carries the query or the passage: %q", sp.Name, k, v)
			}
		}
	}
}
