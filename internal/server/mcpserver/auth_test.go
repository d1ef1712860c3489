package mcpserver_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"ragd/internal/platform/config"
	"ragd/internal/testkit/stack"
)

func connectWithToken(t *testing.T, s *stack.Stack, token string) (*sdk.ClientSession, error) {
	client := sdk.NewClient(&sdk.Implementation{Name: "ragd-auth-test", Version: "1"}, nil)
	tr := &sdk.StreamableClientTransport{Endpoint: s.URL + "/mcp", HTTPClient: &http.Client{Transport: stack.Bearer(token)}}
	cs, err := client.Connect(t.Context(), tr, nil)
	if err == nil {
		t.Cleanup(func() { _ = cs.Close() })
	}
	return cs, err
}

func TestMCPAuth(t *testing.T) {
	t.Parallel()
	cfg := stack.Config(t)
	cfg.Auth.Mode = "static-token"
	cfg.Auth.Keys = []config.AuthKey{{Name: "all", Token: "tok-all-0123456789", Groups: []string{"*"}}, {Name: "finance", Token: "tok-fin-0123456789", Namespaces: []string{"finance"}}}
	s := stack.Start(t, cfg, true)

	if _, err := connectWithToken(t, s, "wrong"); err == nil || !strings.Contains(err.Error(), "401") && !strings.Contains(strings.ToLower(err.Error()), "unauthorized") {
		t.Fatalf("wrong token: want a 401, got %v", err)
	}
	resp, err := http.Post(s.URL+"/mcp", "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 401 || !strings.Contains(resp.Header.Get("WWW-Authenticate"), "resource_metadata") {
		t.Fatalf("no token: %d %q", resp.StatusCode, resp.Header.Get("WWW-Authenticate"))
	}

	all, err := connectWithToken(t, s, "tok-all-0123456789")
	if err != nil {
		t.Fatal(err)
	}
	res, out := call(t, all, "core_ingest", map[string]any{"source_uri": "Payroll runs on the 25th.", "source_type": "text", "kb_name": "hr", "wait": true})
	if res.IsError || out["status"] != "completed" {
		t.Fatalf("all-namespaces key ingesting hr: %v %s", out, text(res))
	}
	hrJob, _ := out["job_id"].(string)
	fin, err := connectWithToken(t, s, "tok-fin-0123456789")
	if err != nil {
		t.Fatal(err)
	}
	// hr's job and an unknown one answer alike, but for the id.
	for _, tool := range []string{"core_job_status", "core_cancel_job"} {
		answer := func(id string) string {
			res, _ := call(t, fin, tool, map[string]any{"job_id": id})
			return fmt.Sprint(res.IsError, " ", strings.ReplaceAll(text(res), id, "ID"))
		}
		if a, b := answer(hrJob), answer("0f0e0d0c-0b0a-4908-8706-050403020100"); a != b || !strings.HasPrefix(a, "true ") {
			t.Errorf("finance key %s: hr's job answers %q, an unknown one %q", tool, a, b)
		}
	}
	for _, c := range []struct {
		tool string
		args map[string]any
	}{
		{"core_retrieve_text", map[string]any{"query": "payroll", "kb_name": "hr"}},
		{"core_query", map[string]any{"query": "when is payroll", "kb_name": "hr"}},
		{"core_ingest", map[string]any{"source_uri": "x", "source_type": "text", "kb_name": "hr"}},
		{"core_list_documents", map[string]any{"kb_name": "hr"}},
	} {
		res, _ := call(t, fin, c.tool, c.args)
		if !res.IsError || !strings.Contains(text(res), "forbidden") || !strings.Contains(text(res), `"hr"`) {
			t.Errorf("finance key %s on hr: isError %v %q", c.tool, res.IsError, text(res))
		}
	}
	if res, _ := call(t, fin, "core_retrieve_text", map[string]any{"query": "payroll", "kb_name": "finance"}); res.IsError {
		t.Fatalf("finance key on finance: %s", text(res))
	}
	res, out = call(t, fin, "core_stats", nil)
	if ns, _ := out["namespaces"].(map[string]any); res.IsError || ns["hr"] != nil {
		t.Fatalf("finance key sees hr in stats: %v", out)
	}
}
