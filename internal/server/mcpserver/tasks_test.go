package mcpserver_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"ragd/internal/testkit/stack"
)

// tasker speaks MCP Tasks to a ragd over raw JSON-RPC, as the 2025-11-25
// requester (modern false) or the 2026-07-28 extension's (modern true):
// the go-sdk client has no Tasks yet.
type tasker struct {
	t      *testing.T
	url    string
	token  string
	modern bool
	// declares: a 2026-07-28 request names the tasks extension.
	declares bool
}

// rpcAnswer is one JSON-RPC answer.
type rpcAnswer struct {
	Status int
	Result map[string]any
	Error  *struct {
		Code    int64  `json:"code"`
		Message string `json:"message"`
	}
	Raw string
}

func (a rpcAnswer) code() int64 {
	if a.Error == nil {
		return 0
	}
	return a.Error.Code
}

// send sends method with params and returns the answer; name is
// Mcp-Name's value (2026-07-28).
func (k *tasker) send(method, name string, params map[string]any) rpcAnswer {
	k.t.Helper()
	if params == nil {
		params = map[string]any{}
	}
	if k.modern {
		caps := map[string]any{}
		if k.declares {
			caps["extensions"] = map[string]any{"io.modelcontextprotocol/tasks": map[string]any{}}
		}
		params["_meta"] = map[string]any{"io.modelcontextprotocol/protocolVersion": newestVersion,
			"io.modelcontextprotocol/clientCapabilities": caps,
			"io.modelcontextprotocol/clientInfo":         map[string]any{"name": "ragd-tasks-test", "version": "1"}}
	}
	body, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 7, "method": method, "params": params})
	if err != nil {
		k.t.Fatal(err)
	}
	req, err := http.NewRequest(http.MethodPost, k.url+"/mcp", bytes.NewReader(body))
	if err != nil {
		k.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if k.token != "" {
		req.Header.Set("Authorization", "Bearer "+k.token)
	}
	if k.modern {
		req.Header.Set("MCP-Protocol-Version", newestVersion)
		req.Header.Set("Mcp-Method", method)
		if name != "" {
			req.Header.Set("Mcp-Name", name)
		}
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		k.t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	msg := raw
	if i := bytes.Index(raw, []byte("data: ")); i >= 0 && strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		msg = bytes.TrimSpace(raw[i+len("data: "):])
	}
	a := rpcAnswer{Status: resp.StatusCode, Raw: string(raw)}
	var env struct {
		Result map[string]any `json:"result"`
		Error  *struct {
			Code    int64  `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal(msg, &env); err != nil {
		k.t.Fatalf("%s: not a JSON-RPC answer (%d): %s", method, resp.StatusCode, raw)
	}
	a.Result, a.Error = env.Result, env.Error
	return a
}

// callAsTask calls tool as a task (2025-11-25: with task; 2026-07-28:
// the extension declared) and returns the answer.
func (k *tasker) callAsTask(tool string, args map[string]any, task map[string]any) rpcAnswer {
	k.t.Helper()
	p := map[string]any{"name": tool, "arguments": args}
	if !k.modern {
		if task == nil {
			task = map[string]any{}
		}
		p["task"] = task
	}
	return k.send("tools/call", tool, p)
}

// created is the task a CreateTaskResult holds.
func (k *tasker) created(a rpcAnswer) map[string]any {
	k.t.Helper()
	if a.Error != nil || a.Result == nil {
		k.t.Fatalf("no task: %s", a.Raw)
	}
	if k.modern {
		if a.Result["resultType"] != "task" {
			k.t.Fatalf("2026-07-28 CreateTaskResult without resultType task: %s", a.Raw)
		}
		return a.Result
	}
	task, _ := a.Result["task"].(map[string]any)
	if task == nil {
		k.t.Fatalf("2025-11-25 CreateTaskResult without task: %s", a.Raw)
	}
	return task
}

func (k *tasker) get(id string) rpcAnswer {
	return k.send("tasks/get", id, map[string]any{"taskId": id})
}

// settle polls tasks/get until the task ends and returns the last answer.
func (k *tasker) settle(id string) map[string]any {
	k.t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for {
		a := k.get(id)
		if a.Error != nil {
			k.t.Fatalf("tasks/get %s: %s", id, a.Raw)
		}
		switch a.Result["status"] {
		case "completed", "failed", "cancelled":
			return a.Result
		case "working":
		default:
			k.t.Fatalf("tasks/get %s: status %v", id, a.Result["status"])
		}
		if time.Now().After(deadline) {
			k.t.Fatalf("task %s still working: %s", id, a.Raw)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// structured is a tool result's structured content.
func structured(t *testing.T, res map[string]any) map[string]any {
	t.Helper()
	sc, _ := res["structuredContent"].(map[string]any)
	if sc == nil {
		t.Fatalf("no structured content: %v", res)
	}
	return sc
}

func writeDoc(t *testing.T, path, body string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

// jobStatus is GET /jobs/{id}'s status and error.
func jobStatus(t *testing.T, s *stack.Stack, token, id string) (string, string) {
	t.Helper()
	resp := s.DoAs(t, token, http.MethodGet, "/jobs/"+id, nil)
	if resp.Status != http.StatusOK {
		t.Fatalf("GET /jobs/%s: %d %s", id, resp.Status, resp.Body)
	}
	st, _ := resp.JSON["status"].(string)
	e, _ := resp.JSON["error"].(string)
	return st, e
}

func fmtMs(d time.Duration) float64 { return float64(d.Milliseconds()) }

var _ = fmt.Sprint
