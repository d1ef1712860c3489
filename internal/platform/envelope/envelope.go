// Package envelope checks JSON-RPC 2.0 envelopes — a body split into its
// messages, each message's jsonrpc, id, method and params — for the two
// JSON-RPC endpoints ragd serves: MCP at /mcp and web search at POST /.
// Methods themselves are the endpoints' business.
package envelope

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
)

// The error codes of JSON-RPC 2.0.
const (
	ParseError     = -32700 // the body is not JSON
	InvalidRequest = -32600 // JSON, but not a JSON-RPC 2.0 message
	MethodNotFound = -32601
	InvalidParams  = -32602
	InternalError  = -32603
)

// Problem is why a body or a message is not valid JSON-RPC 2.0: the code to
// answer with and a reason for people.
type Problem struct {
	Code   int
	Reason string
}

func invalid(format string, args ...any) *Problem {
	return &Problem{Code: InvalidRequest, Reason: fmt.Sprintf(format, args...)}
}

// Split parses body into its messages: one, or a batch of at most maxBatch
// (each call may search or ingest: one request must not run thousands).
func Split(body []byte, maxBatch int) (msgs []json.RawMessage, batch bool, p *Problem) {
	body = bytes.TrimSpace(body)
	if !json.Valid(body) {
		return nil, false, &Problem{Code: ParseError, Reason: "the body is not valid JSON"}
	}
	if body[0] != '[' {
		return []json.RawMessage{body}, false, nil
	}
	_ = json.Unmarshal(body, &msgs) // cannot fail: valid JSON starting with '['
	switch {
	case len(msgs) == 0:
		return nil, true, invalid("empty batch")
	case len(msgs) > maxBatch:
		return nil, true, invalid("batch of %d messages exceeds the limit of %d", len(msgs), maxBatch)
	}
	return msgs, true, nil
}

// Envelope is one checked message.
type Envelope struct {
	ID     json.RawMessage // nil when absent: a notification
	Method string          // "" for a response
	Params json.RawMessage // nil when absent or null
	// Response marks a reply to a request the server sent (result or
	// error, no method), which MCP clients send and the web-search
	// endpoint refuses.
	Response bool
}

// Notification reports a request that wants no answer.
func (e Envelope) Notification() bool { return e.ID == nil && !e.Response }

var nullID = json.RawMessage("null")

// Check checks one message's envelope. Keys match exactly (a struct would
// match "JSONRPC" or "Method" too). On failure the envelope still carries
// the id when it was readable, so the error can echo it.
func Check(raw json.RawMessage) (Envelope, *Problem) {
	var e Envelope
	var f map[string]json.RawMessage
	if len(raw) == 0 || raw[0] != '{' || json.Unmarshal(raw, &f) != nil {
		return e, invalid("a message must be a JSON object")
	}
	if id, ok := f["id"]; ok {
		if !validID(id) {
			return e, invalid(`"id" must be a string, a number or null`)
		}
		e.ID = id
	}
	var version string
	if json.Unmarshal(f["jsonrpc"], &version) != nil || version != "2.0" {
		return e, invalid(`"jsonrpc" must be "2.0"`)
	}
	m, hasMethod := f["method"]
	_, hasResult := f["result"]
	_, hasError := f["error"]
	switch {
	case !hasMethod && (hasResult || hasError):
		e.Response = true
		return e, nil
	case !hasMethod:
		return e, invalid(`"method" is missing`)
	case m[0] != '"' || json.Unmarshal(m, &e.Method) != nil || e.Method == "":
		return e, invalid(`"method" must be a non-empty string`)
	}
	if p := f["params"]; len(p) > 0 && !bytes.Equal(p, nullID) {
		e.Params = p
	}
	return e, nil
}

// validID accepts the spec's id types: string, number or null.
func validID(id json.RawMessage) bool {
	if len(id) == 0 {
		return false
	}
	c := id[0]
	return c == '"' || c == '-' || (c >= '0' && c <= '9') || slices.Equal(id, nullID)
}
