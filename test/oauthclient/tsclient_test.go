package oauthclient_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"ragd/internal/testkit/signin"
)

// TestTypeScriptSDKClientSignsInAndRetrieves: the TypeScript SDK's OAuth
// client (tsclient.mjs), given only ragd's /mcp URL, completes the flow
// and core_retrieve_text answers with eng's document, never fin's.
func TestTypeScriptSDKClientSignsInAndRetrieves(t *testing.T) {
	bin, err := exec.LookPath("node")
	if err != nil {
		t.Fatal("node is not installed: this test runs the official TypeScript SDK with Node.js (>= 18); install nodejs and npm")
	}
	sdk, _ := filepath.Abs("../mcpclient/node_modules/@modelcontextprotocol/sdk/package.json")
	if _, err := os.Stat(sdk); err != nil {
		t.Fatalf("%s is missing: `make test` installs it; by hand: cd test/mcpclient && npm ci --ignore-scripts --no-audit --no-fund", sdk)
	}
	s, _ := signin.StartGitHub(t)
	cmd := exec.CommandContext(t.Context(), bin, "tsclient.mjs", s.URL)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("tsclient.mjs: %v\n%s\n%s", err, out, stderr.String())
	}
	var flow []string
	var result struct {
		Result  any    `json:"result"`
		IsError bool   `json:"isError"`
		Scope   string `json:"scope"`
	}
	for sc := bufio.NewScanner(bytes.NewReader(out)); sc.Scan(); {
		var step struct {
			Request string `json:"request"`
			Status  int    `json:"status"`
		}
		if json.Unmarshal(sc.Bytes(), &step) == nil && step.Request != "" {
			flow = append(flow, fmt.Sprintf("%s -> %d", step.Request, step.Status))
			continue
		}
		_ = json.Unmarshal(sc.Bytes(), &result)
	}
	text := fmt.Sprint(result.Result)
	if result.IsError || !strings.Contains(text, "runbook") || strings.Contains(text, "ledger") || result.Scope != "read write" {
		t.Fatalf("core_retrieve_text through the TypeScript SDK: %+v\nflow:\n%s", result, strings.Join(flow, "\n"))
	}
	t.Logf("the flow as the TypeScript SDK client and its browser saw it:\n%s", strings.Join(flow, "\n"))
}
