package mcpclient_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"ragd"
	"ragd/internal/testkit/stack"
)

// The official MCP conformance suite (@modelcontextprotocol/conformance,
// pinned in package.json to 0.1.13, the last release that runs on Node 20:
// later ones import fs.globSync, Node 22's) runs its server scenarios against ragd. Only
// those that hold for any server apply: the others (completion-complete,
// resources-read-text, resources-templates-read, prompts-get-*,
// tools-call-*, json-schema-2020-12, elicitation-*) call fixtures of the
// suite's own test server by name (test_prompt_with_arguments,
// test://static-text, test_sampling, ...), which ragd rightly answers as
// unknown. resources-list and prompts-list apply since ragd has resources
// and prompts; the SSE stream scenarios need a session (stateful HTTP).
var (
	conformanceScenarios = []string{"server-initialize", "ping", "logging-set-level", "tools-list",
		"resources-list", "prompts-list", "dns-rebinding-protection"}
	statefulScenarios = []string{"server-sse-polling", "server-sse-multiple-streams"}
)

// conformanceCheck is one check of a scenario's checks.json.
type conformanceCheck struct {
	ID           string          `json:"id"`
	Status       string          `json:"status"`
	ErrorMessage string          `json:"errorMessage"`
	Details      json.RawMessage `json:"details"`
}

// runConformance runs one server scenario against url and returns its
// checks, failing the test unless the suite exits 0 with no FAILURE.
// WARNINGs (SHOULDs, such as SSE priming events) are logged.
func runConformance(t *testing.T, url, scenario string) []conformanceCheck {
	t.Helper()
	bin, dir := node(t)
	cli := filepath.Join(dir, "node_modules", "@modelcontextprotocol", "conformance", "dist", "index.js")
	if _, err := os.Stat(cli); err != nil {
		t.Fatalf("%s is missing: run npm ci in test/mcpclient (scripts/lib.sh install_mcpclient)", cli)
	}
	out := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, cli, "server", "--url", url, "--scenario", scenario, "-o", out)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "NO_COLOR=1", "FORCE_COLOR=0")
	printed, runErr := cmd.CombinedOutput()
	files, _ := filepath.Glob(filepath.Join(out, "*", "checks.json"))
	if len(files) != 1 {
		t.Fatalf("%s: %d checks.json (%v)\n%s", scenario, len(files), runErr, printed)
	}
	raw, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	var checks []conformanceCheck
	if err := json.Unmarshal(raw, &checks); err != nil || len(checks) == 0 {
		t.Fatalf("%s: checks.json: %v %s", scenario, err, raw)
	}
	for _, c := range checks {
		switch c.Status {
		case "SUCCESS", "INFO":
		case "WARNING":
			t.Logf("%s: warning %s: %s", scenario, c.ID, c.ErrorMessage)
		default:
			t.Errorf("%s: %s %s: %s %s", scenario, c.Status, c.ID, c.ErrorMessage, c.Details)
		}
	}
	if runErr != nil {
		t.Errorf("%s: conformance exited %v\n%s", scenario, runErr, printed)
	}
	return checks
}

// detailsOf reads the details of the check named id.
func detailsOf(t *testing.T, checks []conformanceCheck, id string, v any) {
	t.Helper()
	for _, c := range checks {
		if c.ID == id {
			if err := json.Unmarshal(c.Details, v); err != nil {
				t.Fatalf("%s details: %v %s", id, err, c.Details)
			}
			return
		}
	}
	t.Fatalf("no check %s in %+v", id, checks)
}

func TestConformanceSuite(t *testing.T) {
	for _, stateless := range []bool{true, false} {
		t.Run(fmt.Sprintf("stateless=%v", stateless), func(t *testing.T) {
			t.Parallel()
			cfg := stack.Config(t, t.TempDir())
			cfg.MCP.Stateless = stateless
			s, url := start(t, cfg)
			// Two documents, so resources-list checks real entries.
			for i := range 2 {
				d := ragd.Document{ID: fmt.Sprintf("%032x", i+1), Namespace: "docs", Source: fmt.Sprintf("file:///docs/%d.txt", i),
					SourceType: ragd.SourceText, ContentHash: fmt.Sprint("h", i), Title: fmt.Sprint("Doc ", i), Chunks: 1, UpdatedAt: time.Now()}
				if err := s.Library.Registry.Put(t.Context(), d); err != nil {
					t.Fatal(err)
				}
			}
			scenarios := conformanceScenarios
			if !stateless {
				scenarios = append(slices.Clone(scenarios), statefulScenarios...)
			}
			for _, sc := range scenarios {
				checks := runConformance(t, url, sc)
				switch sc {
				case "resources-list":
					var d struct{ Resources []string }
					detailsOf(t, checks, "resources-list", &d)
					if len(d.Resources) != 2 || d.Resources[0] != "ragd://docs/documents/"+fmt.Sprintf("%032x", 1) {
						t.Errorf("resources-list saw %v, want the two documents", d.Resources)
					}
				case "prompts-list":
					var d struct{ Prompts []string }
					detailsOf(t, checks, "prompts-list", &d)
					if !slices.Contains(d.Prompts, "kb_answer") || !slices.Contains(d.Prompts, "kb_summarize") {
						t.Errorf("prompts-list saw %v", d.Prompts)
					}
				}
			}
		})
	}
}
