package api_test

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"testing"

	"ragd/internal/platform/config"
	"ragd/internal/testkit/stack"
)

func authStack(t *testing.T) *stack.Stack {
	cfg := stack.Config(t)
	cfg.Auth.Mode = "static-token"
	cfg.Auth.Keys = []config.AuthKey{{Name: "admin", Token: "tok-admin-0123456789", Groups: []string{"*"}}, {Name: "finance", Token: "tok-finance-0123456789", Namespaces: []string{"finance"}}}
	return stack.Start(t, cfg, true)
}

func doAuth(t *testing.T, s *stack.Stack, method, path, token string, body any, header ...string) (int, http.Header, map[string]any) {
	t.Helper()
	var r io.Reader
	if body != nil {
		raw, _ := json.Marshal(body)
		r = bytes.NewReader(raw)
	}
	req, _ := http.NewRequest(method, s.URL+path, r)
	req.Header.Set("Content-Type", "application/json")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out map[string]any
	_ = json.NewDecoder(resp.Body).Decode(&out)
	return resp.StatusCode, resp.Header, out
}

func TestStaticTokenAuthOnREST(t *testing.T) {
	t.Parallel()
	s := authStack(t)
	search := map[string]any{"query": "revenue", "kb_name": "finance"}

	status, h, out := doAuth(t, s, "POST", "/tools/rag_search", "", search)
	if status != 401 || !strings.Contains(h.Get("WWW-Authenticate"), `resource_metadata="`) ||
		!strings.Contains(h.Get("WWW-Authenticate"), "/.well-known/oauth-protected-resource") || str(out, "detail") == "" {
		t.Fatalf("no token: %d %q %v", status, h.Get("WWW-Authenticate"), out)
	}
	status, h, _ = doAuth(t, s, "POST", "/tools/rag_search", "wrong-token", search)
	if status != 401 || !strings.Contains(h.Get("WWW-Authenticate"), `error="invalid_token"`) {
		t.Fatalf("wrong token: %d %q", status, h.Get("WWW-Authenticate"))
	}
	if status, _, _ = doAuth(t, s, "POST", "/tools/rag_search", "tok-admin-0123456789", search); status != 200 {
		t.Fatalf("admin key: %d", status)
	}
	// A key limited to finance can neither read nor ingest hr.
	if status, _, _ = doAuth(t, s, "POST", "/tools/rag_search", "tok-finance-0123456789", search); status != 200 {
		t.Fatalf("finance key on finance: %d", status)
	}
	status, _, out = doAuth(t, s, "POST", "/tools/rag_search", "tok-finance-0123456789", map[string]any{"query": "x", "kb_name": "hr"})
	if status != 403 || !strings.Contains(str(out, "detail"), `"finance" may not access namespace "hr"`) {
		t.Fatalf("finance key on hr search: %d %v", status, out)
	}
	status, _, out = doAuth(t, s, "POST", "/tools/rag_index", "tok-finance-0123456789", map[string]any{"text": "salaries", "kb_name": "hr"})
	if status != 403 {
		t.Fatalf("finance key ingesting hr: %d %v", status, out)
	}
	status, _, _ = doAuth(t, s, "POST", "/tools/rag_search", "tok-finance-0123456789",
		map[string]any{"query": "x", "scope_filter": map[string]any{"kb_names": []string{"finance", "hr"}}})
	if status != 403 {
		t.Fatalf("finance key fanning out to hr: %d", status)
	}
	status, _, out = doAuth(t, s, "POST", "/tools/rag_index", "tok-finance-0123456789", map[string]any{"text": "Q3 revenue rose.", "kb_name": "finance"})
	if status != 202 {
		t.Fatalf("finance key ingesting finance: %d %v", status, out)
	}
	// Its job is visible to finance, and to nobody limited elsewhere.
	if status, _, _ = doAuth(t, s, "GET", "/jobs/"+str(out, "job_id"), "tok-finance-0123456789", nil); status != 200 {
		t.Fatalf("finance job: %d", status)
	}
	if status, _, _ = doAuth(t, s, "DELETE", "/tools/rag_clear?all=true&confirm=true", "tok-finance-0123456789", nil); status != 403 {
		t.Fatalf("a limited key cleared everything: %d", status)
	}
	_, _, stats := doAuth(t, s, "GET", "/tools/rag_stats", "tok-finance-0123456789", nil)
	if st, _ := stats["statistics"].(map[string]any); st == nil {
		t.Fatalf("stats: %v", stats)
	}

	// Public paths stay open; the metadata names the resource.
	for _, p := range []string{"/", "/health", "/openapi.json", "/docs/"} {
		if status, _, _ := doAuth(t, s, "GET", p, "", nil); status != 200 {
			t.Errorf("public %s: %d", p, status)
		}
	}
	// POST / (web-search JSON-RPC) is not public although GET / is.
	if status, _, _ := doAuth(t, s, "POST", "/", "", map[string]any{"jsonrpc": "2.0", "id": 1, "method": "initialize"}); status != 401 {
		t.Errorf("POST / without a token: %d", status)
	}
	status, _, meta := doAuth(t, s, "GET", "/.well-known/oauth-protected-resource", "", nil)
	if status != 200 || str(meta, "resource") == "" {
		t.Fatalf("metadata: %d %v", status, meta)
	}
	// DNS-rebinding guard: a foreign Origin is refused even with a good key.
	if status, _, _ = doAuth(t, s, "POST", "/tools/rag_search", "tok-admin-0123456789", search, "Origin", "http://evil.example"); status != 403 {
		t.Fatalf("foreign origin: %d", status)
	}
	if status, _, _ = doAuth(t, s, "POST", "/tools/rag_search", "tok-admin-0123456789", search, "Origin", s.URL); status != 200 {
		t.Fatalf("same origin: %d", status)
	}
}

// A browser logs in to the Asynq UI with Basic (any user, the key as
// password); a namespace-limited key may not use it, by either scheme.
func TestOperatorUIAuth(t *testing.T) {
	t.Parallel()
	s := authStack(t)
	basic := func(token string) string {
		return "Basic " + base64.StdEncoding.EncodeToString([]byte("operator:"+token))
	}
	status, h, _ := doAuth(t, s, "GET", "/monitoring/api/queues", "", nil)
	if status != 401 || !slices.Contains(h.Values("WWW-Authenticate"), `Basic realm="ragd operators", charset="UTF-8"`) ||
		!strings.HasPrefix(h.Values("WWW-Authenticate")[0], "Bearer ") {
		t.Fatalf("no credentials: %d %q", status, h.Values("WWW-Authenticate"))
	}
	if status, _, _ = doAuth(t, s, "GET", "/monitoring/api/queues", "", nil, "Authorization", basic("tok-admin-0123456789")); status != 200 {
		t.Fatalf("admin key as Basic password: %d", status)
	}
	if status, _, _ = doAuth(t, s, "GET", "/monitoring/api/queues", "", nil, "Authorization", basic("wrong-token")); status != 401 {
		t.Fatalf("wrong Basic password: %d", status)
	}
	status, _, out := doAuth(t, s, "GET", "/monitoring/api/queues", "", nil, "Authorization", basic("tok-finance-0123456789"))
	if status != 403 || !strings.Contains(str(out, "detail"), `needs an operator`) {
		t.Fatalf("finance key as Basic password: %d %v", status, out)
	}
	if status, _, _ = doAuth(t, s, "GET", "/monitoring/api/queues", "tok-finance-0123456789", nil); status != 403 {
		t.Fatalf("finance key as Bearer: %d", status)
	}
	// Basic is for the operator UI only.
	if status, _, _ = doAuth(t, s, "GET", "/tools/rag_stats", "", nil, "Authorization", basic("tok-admin-0123456789")); status != 401 {
		t.Fatalf("Basic on the REST API: %d", status)
	}
}

// Keys never reach the logs.
func TestKeysAreNotLogged(t *testing.T) {
	t.Parallel()
	var logs bytes.Buffer
	cfg := stack.Config(t)
	cfg.Auth.Mode = "static-token"
	cfg.Auth.Keys = []config.AuthKey{{Name: "admin", Token: "tok-secret-abcdef0123", Groups: []string{"*"}}}
	cfg.Log.Level = "debug"
	s := stack.StartWithLogger(t, cfg, false, slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug})))
	doAuth(t, s, "POST", "/tools/rag_search", "tok-secret-abcdef0123", map[string]any{"query": "x"})
	doAuth(t, s, "POST", "/tools/rag_search", "tok-secret-abcdef0124", map[string]any{"query": "x"})
	doAuth(t, s, "POST", "/tools/rag_search", "", map[string]any{"query": "x"})
	if strings.Contains(logs.String(), "tok-secret") {
		t.Fatalf("a key was logged:\n%s", logs.String())
	}
	if !strings.Contains(logs.String(), "admin") {
		t.Fatalf("the key's name should be logged for an accepted request:\n%s", logs.String())
	}
}
