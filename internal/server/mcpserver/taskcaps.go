package mcpserver

import (
	"bytes"
	"encoding/json"
	"net/http"

	"ragd/internal/platform/envelope"
)

// The go-sdk's capabilities and tool definitions have no Tasks fields yet,
// so the answers that advertise them are completed here, on the way out:
//
//   - initialize (2025-11-25): capabilities.tasks {list, cancel,
//     requests.tools.call};
//   - server/discover (2026-07-28): capabilities.extensions
//     {"io.modelcontextprotocol/tasks": {}};
//   - tools/list before 2026-07-28: execution.taskSupport "optional" on
//     the task tools (2026-07-28 tools carry none: the server decides).
//
// Only the SDK's successful JSON-RPC results are touched; everything else
// passes byte for byte.

// advertises reports whether the answer to env is one whose result
// advertises tasks, and which.
func advertises(env *envelope.Envelope, modern bool) bool {
	switch env.Method {
	case "initialize", "tools/list":
		return !modern
	case "server/discover":
		return true // 2026-07-28 only
	}
	return false
}

// advertise serves r through next, adding what the Tasks protocol
// advertises to its result.
func (t *taskWire) advertise(next http.Handler, w http.ResponseWriter, r *http.Request, method string) {
	var c capture
	c.h = http.Header{}
	next.ServeHTTP(&rewriter{ResponseWriter: &c}, r)
	body := c.body.Bytes()
	if c.status == 0 || c.status == http.StatusOK {
		body = t.patchMessages(body, method)
	}
	for k, v := range c.h {
		w.Header()[k] = v
	}
	w.Header().Del("Content-Length") // the body grew
	if c.status != 0 {
		w.WriteHeader(c.status)
	}
	_, _ = w.Write(body)
}

// patchMessages patches the JSON-RPC result in body: one JSON message, or
// the data lines of an event stream.
func (t *taskWire) patchMessages(body []byte, method string) []byte {
	trimmed := bytes.TrimSpace(body)
	if len(trimmed) > 0 && trimmed[0] == '{' {
		return t.patchMessage(body, method)
	}
	lines := bytes.Split(body, []byte("\n"))
	for i, line := range lines {
		if data, ok := bytes.CutPrefix(line, []byte("data: ")); ok {
			lines[i] = append([]byte("data: "), t.patchMessage(data, method)...)
		}
	}
	return bytes.Join(lines, []byte("\n"))
}

// patchMessage is msg with its result patched, or msg unchanged when it is
// no result or the result is not as expected.
func (t *taskWire) patchMessage(msg []byte, method string) []byte {
	var m map[string]json.RawMessage
	if json.Unmarshal(msg, &m) != nil || m["result"] == nil {
		return msg
	}
	var res map[string]json.RawMessage
	if json.Unmarshal(m["result"], &res) != nil {
		return msg
	}
	var ok bool
	switch method {
	case "initialize":
		ok = setIn(res, "capabilities", "tasks", json.RawMessage(`{"list":{},"cancel":{},"requests":{"tools":{"call":{}}}}`))
	case "server/discover":
		ok = patchObject(res, "capabilities", func(caps map[string]json.RawMessage) bool {
			return setIn(caps, "extensions", tasksExtension, json.RawMessage(`{}`))
		})
	case "tools/list":
		ok = t.markTools(res)
	}
	if !ok {
		return msg
	}
	raw, err := json.Marshal(res)
	if err != nil {
		return msg
	}
	m["result"] = raw
	out, err := json.Marshal(m)
	if err != nil {
		return msg
	}
	return out
}

// markTools gives the task tools of a tools/list result their
// execution.taskSupport.
func (t *taskWire) markTools(res map[string]json.RawMessage) bool {
	var tools []map[string]json.RawMessage
	if json.Unmarshal(res["tools"], &tools) != nil {
		return false
	}
	for _, tool := range tools {
		var name string
		if json.Unmarshal(tool["name"], &name) == nil && t.supports(name) {
			tool["execution"] = json.RawMessage(`{"taskSupport":"optional"}`)
		}
	}
	raw, err := json.Marshal(tools)
	if err != nil {
		return false
	}
	res["tools"] = raw
	return true
}

// setIn sets obj[key][field] = v, creating obj[key] when absent.
func setIn(obj map[string]json.RawMessage, key, field string, v json.RawMessage) bool {
	return patchObject(obj, key, func(inner map[string]json.RawMessage) bool {
		inner[field] = v
		return true
	})
}

// patchObject changes the object obj[key] (an empty one when absent).
func patchObject(obj map[string]json.RawMessage, key string, change func(map[string]json.RawMessage) bool) bool {
	inner := map[string]json.RawMessage{}
	if raw, ok := obj[key]; ok && json.Unmarshal(raw, &inner) != nil {
		return false
	}
	if inner == nil {
		inner = map[string]json.RawMessage{}
	}
	if !change(inner) {
		return false
	}
	raw, err := json.Marshal(inner)
	if err != nil {
		return false
	}
	obj[key] = raw
	return true
}

// capture keeps an answer to complete it before it is sent.
type capture struct {
	h      http.Header
	status int
	body   bytes.Buffer
}

func (c *capture) Header() http.Header { return c.h }

func (c *capture) WriteHeader(status int) {
	if c.status == 0 {
		c.status = status
	}
}

func (c *capture) Write(b []byte) (int, error) { return c.body.Write(b) }

// Flush holds the answer until it is complete.
func (c *capture) Flush() {}
