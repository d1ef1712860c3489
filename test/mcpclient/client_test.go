// Package mcpclient_test proves ragd's MCP server with a client nobody here
// wrote: the official TypeScript SDK (@modelcontextprotocol/sdk, pinned in
// package.json), driven by client.mjs over streamable HTTP against a ragd
// started in-process on the real Redis and Weaviate of `make test`; the
// official conformance suite (@modelcontextprotocol/conformance) runs its
// applicable server scenarios against it too (conformance_test.go); and the
// official Tasks requester, @modelcontextprotocol/ext-tasks over the SDK's
// @modelcontextprotocol/client, drives MCP Tasks in both protocol
// generations against ragd run as its own process (tasks.mjs,
// tasks_test.go).
//
// scripts/test.sh installs both (npm ci into node_modules here).
package mcpclient_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"ragd"
	"ragd/internal/platform/config"
	"ragd/internal/testkit/stack"
	"ragd/internal/testkit/testenv"
)

// node returns the node binary and the directory of client.mjs, failing
// (or, with -short and no node at all, skipping) when either is unusable.
func node(t *testing.T) (bin, dir string) {
	t.Helper()
	bin, err := exec.LookPath("node")
	if err != nil {
		if testing.Short() {
			t.Skip("node is not installed (-short): skipping the TypeScript SDK client test")
		}
		t.Fatal("node is not installed: the MCP client test runs the official TypeScript SDK with Node.js (>= 18); install nodejs and npm")
	}
	dir, err = filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	sdkPkg := filepath.Join(dir, "node_modules", "@modelcontextprotocol", "sdk", "package.json")
	if _, err := os.Stat(sdkPkg); err != nil {
		t.Fatalf("%s is missing: `make test` installs it (scripts/test.sh runs `npm ci` in test/mcpclient); "+
			"by hand: cd test/mcpclient && npm ci --ignore-scripts --no-audit --no-fund", sdkPkg)
	}
	return bin, dir
}

// docsRoot is an ingest root holding two real documents from the Go distribution.
func docsRoot(t *testing.T) string {
	root := t.TempDir()
	for _, f := range []string{"go_mem.html", "godebug.md"} {
		testenv.CopyFile(t, testenv.GorootFile(t, "doc/"+f), filepath.Join(root, f))
	}
	return root
}

// stepLine is one line client.mjs prints.
type stepLine struct {
	Step    string `json:"step"`
	OK      bool   `json:"ok"`
	Summary bool   `json:"summary"`
	Passed  int    `json:"passed"`
	Failed  int    `json:"failed"`
}

// runClient runs client.mjs with scenario and returns its steps by name; it
// fails the test with the script's whole output unless every step passed
// and every step in want ran.
func runClient(t *testing.T, scenario map[string]any, want ...string) map[string]json.RawMessage {
	t.Helper()
	return runScript(t, "client.mjs", scenario, want...)
}

// runScript is runClient for another script of this directory that
// prints the same lines.
func runScript(t *testing.T, script string, scenario map[string]any, want ...string) map[string]json.RawMessage {
	t.Helper()
	bin, dir := node(t)
	raw, err := json.Marshal(scenario)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, script, string(raw))
	cmd.Dir = dir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	runErr := cmd.Run()

	steps := map[string]json.RawMessage{}
	var failed []string
	sawSummary := false
	sc := bufio.NewScanner(bytes.NewReader(stdout.Bytes()))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Bytes()
		t.Logf("%s: %s", script, line)
		var s stepLine
		if json.Unmarshal(line, &s) != nil {
			continue
		}
		if s.Summary {
			sawSummary = true
			continue
		}
		steps[s.Step] = append(json.RawMessage(nil), line...)
		if !s.OK {
			failed = append(failed, s.Step)
		}
	}
	if runErr != nil || len(failed) > 0 || !sawSummary {
		var exitErr *exec.ExitError
		code := "?"
		if errors.As(runErr, &exitErr) {
			code = exitErr.String()
		} else if runErr != nil {
			code = runErr.Error()
		}
		t.Fatalf("%s failed (%s; failed steps %v)\nstdout:\n%s\nstderr:\n%s", script, code, failed, stdout.String(), stderr.String())
	}
	var missing []string
	for _, w := range want {
		if _, ok := steps[w]; !ok {
			missing = append(missing, w)
		}
	}
	if len(missing) > 0 {
		t.Fatalf("%s did not run steps %v\nstdout:\n%s", script, missing, stdout.String())
	}
	if c, ok := steps["connect"]; ok {
		var d struct {
			ProtocolVersion string `json:"protocol_version"`
			Server          struct{ Name, Version string }
		}
		_ = json.Unmarshal(c, &d)
		t.Logf("negotiated MCP protocol version %s with server %s %s", d.ProtocolVersion, d.Server.Name, d.Server.Version)
		if d.ProtocolVersion == "" {
			t.Errorf("no protocol version negotiated: %s", c)
		}
	}
	return steps
}

func start(t *testing.T, cfg config.Config) (*stack.Stack, string) {
	t.Helper()
	s := stack.Start(t, cfg, true)
	return s, s.URL + "/mcp"
}

var coreSteps = []string{"connect", "list_tools", "ingest_wait_progress", "ingest_async_poll", "retrieve_text", "query"}

// beyondSteps list and read resources, get the prompts and complete
// arguments.
var beyondSteps = []string{"list_resources", "read_resource", "read_chunk", "get_prompt", "get_prompt_summarize",
	"complete_kb_name", "complete_document_id"}

// seedDocuments registers n documents of namespace ns in the registry only:
// enough for resources/list to page, without indexing them.
func seedDocuments(t *testing.T, s *stack.Stack, ns string, n int) {
	t.Helper()
	for i := range n {
		d := ragd.Document{ID: fmt.Sprintf("%s%028x", "5eed", i), Namespace: ns, Source: fmt.Sprintf("file:///%s/%03d.txt", ns, i),
			SourceType: ragd.SourceText, ContentHash: fmt.Sprint("h", i), Title: fmt.Sprint(ns, " ", i), Chunks: 1, UpdatedAt: time.Now()}
		if err := s.Library.Registry.Put(t.Context(), d); err != nil {
			t.Fatal(err)
		}
	}
}

func baseScenario(url string, root string, cfg config.Config) map[string]any {
	return map[string]any{
		"url":               url,
		"ingest_wait_path":  filepath.Join(root, "go_mem.html"),
		"ingest_async_path": filepath.Join(root, "godebug.md"),
		"retrieve_query":    "happens before synchronized",
		"query":             "What is a data race?",
		"server_wait_ms":    cfg.MCP.WaitTimeout.Milliseconds(),
		"job_timeout_ms":    (2 * time.Minute).Milliseconds(),
	}
}

func TestTypeScriptSDKClient(t *testing.T) {
	node(t) // fail or skip before starting anything

	t.Run("auth disabled", func(t *testing.T) {
		t.Parallel()
		root := docsRoot(t)
		cfg := stack.Config(t, root)
		cfg.Embed.BatchSize = 4 // several embedding steps, each a progress notification
		_, url := start(t, cfg)
		sc := baseScenario(url, root, cfg)
		sc["kb_name"] = "docs"
		sc["beyond_tools"] = true
		sc["expect_resources"] = map[string]int{"docs": 2}
		runClient(t, sc, append(coreSteps, beyondSteps...)...)
	})

	// Sampling needs a session that carries the server's request to the
	// client during the call: HTTP with mcp.stateless false (the SDK speaks
	// 2025-11-25, before multi round-trip requests). ragd has no chat model,
	// so the client's stand-in model writes core_query's answer.
	t.Run("sampling on a stateful session", func(t *testing.T) {
		t.Parallel()
		root := docsRoot(t)
		cfg := stack.Config(t, root)
		cfg.MCP.Stateless = false
		_, url := start(t, cfg)
		sc := baseScenario(url, root, cfg)
		sc["kb_name"] = "docs"
		sc["beyond_tools"] = true
		sc["sampling_answer"] = "STAND-IN MODEL: two goroutines access one variable without synchronization, one of them writing [1]."
		sc["sampling_decline"] = "User rejected sampling request"
		steps := runClient(t, sc, append(coreSteps, append(beyondSteps, "query_sampling", "query_sampling_declined")...)...)
		if !strings.Contains(string(steps["query"]), `"route":"sampling"`) {
			t.Errorf("core_query: %s", steps["query"])
		}
		if !strings.Contains(string(steps["query_sampling_declined"]), `"route":"extractive"`) {
			t.Errorf("core_query, sampling declined: %s", steps["query_sampling_declined"])
		}
	})

	t.Run("static-token auth", func(t *testing.T) {
		t.Parallel()
		root := docsRoot(t)
		cfg := stack.Config(t, root)
		cfg.Embed.BatchSize = 4
		cfg.Auth.Mode = "static-token"
		cfg.Auth.Keys = []config.AuthKey{
			{Name: "all", Token: "tok-all"},
			{Name: "finance", Token: "tok-fin", Namespaces: []string{"finance"}},
		}
		s, url := start(t, cfg)
		// 150 more documents, so that resources/list pages (100 a page);
		// one in finance, the limited key's only one.
		seedDocuments(t, s, "bulk", 150)
		seedDocuments(t, s, "finance", 1)
		sc := baseScenario(url, root, cfg)
		sc["token"] = "tok-all"
		sc["kb_name"] = "default"
		sc["refused_tokens"] = []string{"wrong-token", ""}
		sc["forbidden"] = map[string]any{"token": "tok-fin", "kb_name": "default"}
		sc["beyond_tools"] = true
		sc["expect_resources"] = map[string]int{"default": 2, "bulk": 150, "finance": 1}
		sc["limited"] = map[string]any{"token": "tok-fin", "kb_name": "finance"}
		steps := runClient(t, sc, append(coreSteps, append(beyondSteps,
			"limited_key_scope", "auth_refused(wrong token)", "auth_refused(no token)", "auth_namespace_forbidden")...)...)
		if !strings.Contains(string(steps["list_resources"]), `"pages":[100,53]`) {
			t.Errorf("resources/list pages: %s", steps["list_resources"])
		}
		if !strings.Contains(string(steps["auth_namespace_forbidden"]), "forbidden") {
			t.Errorf("namespace refusal: %s", steps["auth_namespace_forbidden"])
		}
	})
}
