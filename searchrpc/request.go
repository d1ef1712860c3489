package searchrpc

import (
	"encoding/json"
	"slices"
)

// request is one JSON-RPC request or notification, checked against the
// spec's envelope rules.
type request struct {
	id     json.RawMessage // nil for a notification
	method string
	params json.RawMessage // nil when absent or null
}

func (r request) notification() bool { return r.id == nil }

// parseRequest checks raw, a valid JSON value, against the envelope rules.
// On failure the returned request still carries the id if it was readable,
// so the error can echo it.
func parseRequest(raw json.RawMessage) (request, *rpcError) {
	var req request
	// A map, not a struct: struct decoding matches keys case-insensitively
	// and would take "JSONRPC" or "Method".
	var f map[string]json.RawMessage
	if len(raw) == 0 || raw[0] != '{' || json.Unmarshal(raw, &f) != nil {
		return req, invalidRequest("a request must be a JSON object")
	}
	if id, ok := f["id"]; ok {
		if !validID(id) {
			return req, invalidRequest(`"id" must be a string, a number or null`)
		}
		req.id = id
	}
	var version string
	if json.Unmarshal(f["jsonrpc"], &version) != nil || version != "2.0" {
		return req, invalidRequest(`"jsonrpc" must be "2.0"`)
	}
	m := f["method"]
	if len(m) == 0 || m[0] != '"' || json.Unmarshal(m, &req.method) != nil {
		return req, invalidRequest(`"method" must be a string`)
	}
	if p := f["params"]; len(p) > 0 && string(p) != "null" {
		req.params = p
	}
	return req, nil
}

// validID accepts the spec's id types: string, number or null.
func validID(id json.RawMessage) bool {
	if len(id) == 0 {
		return false
	}
	c := id[0]
	return c == '"' || c == '-' || (c >= '0' && c <= '9') || slices.Equal(id, nullID)
}
