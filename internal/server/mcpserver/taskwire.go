package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	sdkauth "github.com/modelcontextprotocol/go-sdk/auth"
	sdkjsonrpc "github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"ragd"
	"ragd/internal/platform/envelope"
)

// taskWire frames tasks (taskBackend) on stateless streamable HTTP in both
// protocol generations:
//
//   - 2025-11-25 (and earlier versions, which ignore it): a tools/call
//     with a task field is task-augmented and answers CreateTaskResult
//     {task}; tasks/get, tasks/result, tasks/list and tasks/cancel answer
//     a Task (tasks/result: the tool's CallToolResult with
//     io.modelcontextprotocol/related-task). A task field on a tool
//     without task support is -32601.
//   - 2026-07-28, io.modelcontextprotocol/tasks: a client that names the
//     extension in its request's capabilities gets a task from a task
//     tool (the server decides: resultType "task", ttlMs,
//     pollIntervalMs); tasks/get answers the task with its result when
//     completed, tasks/cancel an empty result, tasks/update too (ragd's
//     tasks never ask for input, so every response is ignored); each
//     needs the extension (-32021 without it); tasks/result and tasks/list
//     do not exist there (-32601).
//
// An unknown, malformed or foreign taskId is -32602 "Task not found" in
// both, and so is a finished task's cancel in 2025-11-25 ("already in
// terminal status"); the extension acknowledges that cancel as any other.
// Its -32021 names the extension in data.requiredCapabilities.
// Every answer is JSON, never an event stream (a poll is not a stream).
type taskWire struct {
	backend taskBackend
	// supports reports whether a tool may run as a task.
	supports func(name string) bool
	impl     *sdk.Implementation
}

// newTaskWire serves tasks for the task tools (their handlers by name)
// over ragd's jobs, kept retention (0: 24 h).
func newTaskWire(lib Librarian, tools map[string]sdk.ToolHandler, retention time.Duration, impl *sdk.Implementation) *taskWire {
	if retention <= 0 {
		retention = 24 * time.Hour
	}
	jt := &jobTasks{lib: lib, tools: tools, retention: retention}
	return &taskWire{backend: jt, supports: jt.supports, impl: impl}
}

// taskParams are the params of the messages taskWire answers.
type taskParams struct {
	Meta      sdk.Meta        `json:"_meta"`
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
	Task      json.RawMessage `json:"task"`
	TaskID    json.RawMessage `json:"taskId"`
	Cursor    *string         `json:"cursor"`
	// InputResponses are tasks/update's (2026-07-28).
	InputResponses json.RawMessage `json:"inputResponses"`
}

// taskRequest is one message taskWire answers.
type taskRequest struct {
	id     sdkjsonrpc.ID
	method string
	modern bool
	p      taskParams
	r      *http.Request
}

// serve answers env if it is a Tasks message and reports whether it did;
// when it did not, nothing was written.
func (t *taskWire) serve(w http.ResponseWriter, r *http.Request, env *envelope.Envelope) bool {
	switch env.Method {
	case "tools/call":
		if !mayBeTask(env.Params) {
			return false // the common plain call, left to fastCalls undecoded
		}
	case "tasks/get", "tasks/result", "tasks/list", "tasks/cancel", "tasks/update":
	default:
		return false
	}
	version, ok := fastRequest(r)
	if !ok || env.Method == "tasks/update" && version < newProtocol {
		return false // tasks/update is the extension's alone
	}
	id, ok := callID(env.ID)
	if !ok {
		return false
	}
	req := taskRequest{id: id, method: env.Method, modern: version >= newProtocol, r: r}
	if len(env.Params) > 0 && json.Unmarshal(env.Params, &req.p) != nil {
		if env.Method == "tools/call" {
			return false // the SDK says what is wrong with the call
		}
		t.fail(w, req, sdkjsonrpc.CodeInvalidParams, "Invalid params: "+env.Method+" takes {taskId} (tasks/list: {cursor})")
		return true
	}
	if req.modern && (r.Header.Get("Mcp-Method") != env.Method || !sameVersion(req.p.Meta, version)) {
		return false // the SDK refuses the headers or _meta in its words
	}
	if env.Method == "tools/call" {
		return t.call(w, req)
	}
	t.answer(w, req)
	return true
}

// mayBeTask reports whether a tools/call's params may ask for a task: a
// task field (2025-11-25) or the tasks extension (2026-07-28) is spelled
// in them. It spares plain calls a decoding; one spelling either with
// JSON escapes goes to the SDK, which runs it as a plain call.
func mayBeTask(params []byte) bool {
	return bytes.Contains(params, []byte(`"task"`)) || bytes.Contains(params, []byte(tasksExtension))
}

// sameVersion: a 2026-07-28 request's _meta names the header's version.
func sameVersion(meta sdk.Meta, version string) bool {
	v, ok := meta[sdk.MetaKeyProtocolVersion].(string)
	return ok && v == version
}

// declaresTasks reports whether a 2026-07-28 request's capabilities name
// the tasks extension.
func declaresTasks(meta sdk.Meta) bool {
	var caps struct {
		Extensions map[string]json.RawMessage `json:"extensions"`
	}
	if !redecodes(meta[sdk.MetaKeyClientCapabilities], &caps) {
		return false
	}
	_, ok := caps.Extensions[tasksExtension]
	return ok
}

// call answers a task-augmented tools/call, or reports false for a plain
// one (fastCalls or the SDK answers it).
func (t *taskWire) call(w http.ResponseWriter, req taskRequest) bool {
	if req.modern {
		if !declaresTasks(req.p.Meta) || !t.supports(req.p.Name) || req.r.Header.Get("Mcp-Name") != req.p.Name {
			return false
		}
	} else {
		if req.p.Task == nil {
			return false
		}
		if !t.supports(req.p.Name) {
			t.fail(w, req, sdkjsonrpc.CodeMethodNotFound, fmt.Sprintf("Method not found: tool %q does not support task-augmented calls (execution.taskSupport is forbidden)", req.p.Name))
			return true
		}
		var task struct {
			TTL *json.Number `json:"ttl"`
		}
		if json.Unmarshal(req.p.Task, &task) != nil {
			t.fail(w, req, sdkjsonrpc.CodeInvalidParams, "Invalid params: task must be an object {ttl?}")
			return true
		}
		// A requested ttl is a wish: jobs are kept jobs.retention, which
		// the task reports.
	}
	meta := req.p.Meta
	if !req.modern {
		meta = nil
	}
	call := &sdk.CallToolRequest{
		Params: &sdk.CallToolParamsRaw{Meta: meta, Name: req.p.Name, Arguments: req.p.Arguments},
		Extra:  &sdk.RequestExtra{TokenInfo: sdkauth.TokenInfoFromContext(req.r.Context()), Header: req.r.Header},
	}
	state, res, err := t.backend.start(req.r.Context(), call)
	switch {
	case err != nil:
		t.failWith(w, req, err)
	case state == nil:
		t.toolResult(w, req, res)
	case req.modern:
		v := t.taskV2(*state)
		v["resultType"] = "task"
		v["_meta"] = map[string]any{sdk.MetaKeyServerInfo: t.impl}
		t.write(w, req, v)
	default:
		t.write(w, req, map[string]any{"task": taskV1(*state), "_meta": map[string]any{immediateResponseKey: fmt.Sprintf(
			"Started ragd job %s as a task; its result follows when it ends (tasks/get %s).", state.ID, state.ID)}})
	}
	return true
}

// answer answers tasks/get, tasks/result, tasks/list and tasks/cancel.
func (t *taskWire) answer(w http.ResponseWriter, req taskRequest) {
	if req.modern && (req.method == "tasks/result" || req.method == "tasks/list") {
		t.fail(w, req, sdkjsonrpc.CodeMethodNotFound, "Method not found: "+req.method+" is not part of the 2026-07-28 tasks extension")
		return
	}
	if req.modern && !declaresTasks(req.p.Meta) {
		t.failData(w, req, sdk.CodeMissingRequiredClientCapabilities,
			"Missing required client capability: "+req.method+" needs the "+tasksExtension+" extension in the request's client capabilities",
			map[string]any{"requiredCapabilities": map[string]any{"extensions": map[string]any{tasksExtension: map[string]any{}}}})
		return
	}
	ctx := callerContext(req.r.Context(), &sdk.RequestExtra{TokenInfo: sdkauth.TokenInfoFromContext(req.r.Context())})
	if req.method == "tasks/list" {
		t.list(ctx, w, req)
		return
	}
	var id string
	if json.Unmarshal(req.p.TaskID, &id) != nil || id == "" {
		t.fail(w, req, sdkjsonrpc.CodeInvalidParams, "Invalid params: taskId must be a non-empty string")
		return
	}
	if name := req.r.Header.Get("Mcp-Name"); req.modern && name != "" && name != id {
		t.fail(w, req, sdkjsonrpc.CodeInvalidParams, "Invalid params: the Mcp-Name header must be the taskId")
		return
	}
	t.onTask(ctx, w, req, id)
}

// onTask answers a request naming one task.
func (t *taskWire) onTask(ctx context.Context, w http.ResponseWriter, req taskRequest, id string) {
	switch req.method {
	case "tasks/get":
		s, err := t.backend.get(ctx, id)
		if err != nil {
			t.failWith(w, req, err)
		} else if req.modern {
			t.writeV2Task(w, req, s)
		} else {
			t.write(w, req, taskV1(s))
		}
	case "tasks/result":
		_, res, err := t.backend.result(ctx, id)
		if err != nil {
			t.failWith(w, req, err)
			return
		}
		res.Meta = sdk.Meta{relatedTaskKey: map[string]string{"taskId": id}}
		t.toolResult(w, req, res)
	case "tasks/update":
		// ragd's tasks never ask for input: no response is outstanding,
		// so each is ignored, as the extension asks, once the task is
		// known to be the caller's.
		var responses map[string]json.RawMessage
		if json.Unmarshal(req.p.InputResponses, &responses) != nil || responses == nil {
			t.fail(w, req, sdkjsonrpc.CodeInvalidParams, "Invalid params: tasks/update takes {taskId, inputResponses} (inputResponses an object)")
			return
		}
		if _, err := t.backend.get(ctx, id); err != nil {
			t.failWith(w, req, err)
			return
		}
		t.write(w, req, map[string]any{"resultType": "complete"})
	case "tasks/cancel":
		s, err := t.backend.cancel(ctx, id)
		switch {
		case req.modern && ragd.KindOf(err) == ragd.KindConflict:
			// The extension acknowledges a cancel of an ended task as of a
			// running one (its errors are for unknown ids): the task keeps
			// the status it ended with, as tasks/get shows.
			t.write(w, req, map[string]any{"resultType": "complete"})
		case err != nil:
			t.failWith(w, req, err)
		case req.modern:
			t.write(w, req, map[string]any{"resultType": "complete"})
		default:
			t.write(w, req, taskV1(s))
		}
	}
}

func (t *taskWire) list(ctx context.Context, w http.ResponseWriter, req taskRequest) {
	cursor := ""
	if req.p.Cursor != nil {
		cursor = *req.p.Cursor
	}
	tasks, next, err := t.backend.list(ctx, cursor)
	if err != nil {
		t.failWith(w, req, err)
		return
	}
	out := make([]map[string]any, len(tasks))
	for i, s := range tasks {
		out[i] = taskV1(s)
	}
	res := map[string]any{"tasks": out}
	if next != "" {
		res["nextCursor"] = next
	}
	t.write(w, req, res)
}

// taskV1 is a Task as 2025-11-25 writes it.
func taskV1(s taskState) map[string]any {
	return map[string]any{"taskId": s.ID, "status": s.Status, "statusMessage": s.Message,
		"createdAt": s.Created.UTC().Format(time.RFC3339Nano), "lastUpdatedAt": s.Updated.UTC().Format(time.RFC3339Nano),
		"ttl": s.TTL.Milliseconds(), "pollInterval": taskPollInterval.Milliseconds()}
}

// taskV2 is a Task as the 2026-07-28 extension writes it.
func (t *taskWire) taskV2(s taskState) map[string]any {
	return map[string]any{"taskId": s.ID, "status": s.Status, "statusMessage": s.Message,
		"createdAt": s.Created.UTC().Format(time.RFC3339Nano), "lastUpdatedAt": s.Updated.UTC().Format(time.RFC3339Nano),
		"ttlMs": s.TTL.Milliseconds(), "pollIntervalMs": taskPollInterval.Milliseconds()}
}

// writeV2Task answers the extension's tasks/get: the task, with its
// result once it ended. A job that failed is a completed task whose
// result is an error result: the extension keeps failed for JSON-RPC
// errors, and the tool answered (isError, the job's error).
func (t *taskWire) writeV2Task(w http.ResponseWriter, req taskRequest, s taskState) {
	v := t.taskV2(s)
	v["resultType"] = "complete"
	if s.Status == taskCompleted || s.Status == taskFailed {
		res, err := taskResult(s.Job)
		if err != nil {
			t.failWith(w, req, err)
			return
		}
		raw, err := res.MarshalJSON()
		if err != nil {
			t.failWith(w, req, err)
			return
		}
		raw = append(raw[:len(raw)-1], `,"resultType":"complete"}`...)
		v["status"], v["result"] = taskCompleted, json.RawMessage(raw)
	}
	t.write(w, req, v)
}

// toolResult answers with a tool's result, as fastCalls writes one.
func (t *taskWire) toolResult(w http.ResponseWriter, req taskRequest, res *sdk.CallToolResult) {
	f := fastCalls{impl: t.impl}
	msg, err := f.resultMessage(req.id, res, req.modern)
	if err != nil {
		t.failWith(w, req, err)
		return
	}
	writeJSON(w, http.StatusOK, msg)
}

func (t *taskWire) write(w http.ResponseWriter, req taskRequest, result any) {
	raw, err := json.Marshal(result)
	if err == nil {
		var msg []byte
		if msg, err = sdkjsonrpc.EncodeMessage(&sdkjsonrpc.Response{ID: req.id, Result: raw}); err == nil {
			writeJSON(w, http.StatusOK, msg)
			return
		}
	}
	t.failWith(w, req, err)
}

// failWith answers a backend error: an unknown or foreign task, a bad
// cursor, a finished task's cancel (2025-11-25) are invalid params
// (-32602), as the generations ask; anything else an internal error
// (-32603) in toolError's words.
func (t *taskWire) failWith(w http.ResponseWriter, req taskRequest, err error) {
	switch ragd.KindOf(err) {
	case ragd.KindNotFound:
		t.fail(w, req, sdkjsonrpc.CodeInvalidParams, "Failed to retrieve task: Task not found")
	case ragd.KindConflict:
		t.fail(w, req, sdkjsonrpc.CodeInvalidParams, "Cannot cancel task: already in terminal status ("+err.Error()+")")
	case ragd.KindInvalid:
		t.fail(w, req, sdkjsonrpc.CodeInvalidParams, "Invalid params: "+err.Error())
	default:
		t.fail(w, req, sdkjsonrpc.CodeInternalError, toolError(err).Error())
	}
}

// fail answers a JSON-RPC error; from 2026-07-28 on with the HTTP status
// SEP-2575 gives its code, as fastCalls does.
func (t *taskWire) fail(w http.ResponseWriter, req taskRequest, code int64, msg string) {
	t.failData(w, req, code, msg, nil)
}

// failData is fail with the error's data (nil: none).
func (t *taskWire) failData(w http.ResponseWriter, req taskRequest, code int64, msg string, data any) {
	werr := &sdkjsonrpc.Error{Code: code, Message: msg}
	if data != nil {
		werr.Data, _ = json.Marshal(data)
	}
	raw, _ := sdkjsonrpc.EncodeMessage(&sdkjsonrpc.Response{ID: req.id, Error: werr})
	status := http.StatusOK
	if s := errorStatus(werr); req.modern && s != 0 {
		status = s
	}
	writeJSON(w, status, raw)
}

func writeJSON(w http.ResponseWriter, status int, msg []byte) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(msg)
}
