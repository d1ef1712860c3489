package websearchapi

import (
	"encoding/json"

	"ragd/internal/platform/envelope"
)

// JSON-RPC 2.0 error codes the endpoint answers with.
const (
	CodeParseError     = envelope.ParseError     // the body is not JSON
	CodeInvalidRequest = envelope.InvalidRequest // JSON, but not a JSON-RPC 2.0 request
	CodeMethodNotFound = envelope.MethodNotFound
	CodeInvalidParams  = envelope.InvalidParams
	CodeInternalError  = envelope.InternalError // a bug: a method panicked
	// CodeNotConfigured: no web-search provider is set up.
	CodeNotConfigured = -32000
	// CodeProviderFailed: the provider failed, timed out or its circuit
	// breaker is open.
	CodeProviderFailed = -32001
)

// rpcError is a JSON-RPC error object.
type rpcError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	Data    any    `json:"data,omitempty"`
}

// response is a JSON-RPC response object. ID has no omitempty: the spec
// wants "id": null when the request's id could not be read.
type response struct {
	JSONRPC string          `json:"jsonrpc"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   *rpcError       `json:"error,omitempty"`
	ID      json.RawMessage `json:"id"`
}

var nullID = json.RawMessage("null")

func errorResponse(id json.RawMessage, e *rpcError) *response {
	if id == nil {
		id = nullID
	}
	return &response{JSONRPC: "2.0", Error: e, ID: id}
}

// problem is an envelope problem as this endpoint words it.
func problem(p *envelope.Problem) *rpcError {
	if p.Code == envelope.ParseError {
		return &rpcError{Code: p.Code, Message: "parse error: " + p.Reason}
	}
	return &rpcError{Code: p.Code, Message: "invalid request: " + p.Reason}
}

func invalidRequest(msg string) *rpcError {
	return &rpcError{Code: CodeInvalidRequest, Message: "invalid request: " + msg}
}

// invalidParams names the field at fault in data, for programs.
func invalidParams(field, msg string) *rpcError {
	e := &rpcError{Code: CodeInvalidParams, Message: "invalid params: " + msg}
	if field != "" {
		e.Data = map[string]string{"field": field}
	}
	return e
}

var errInternal = &rpcError{Code: CodeInternalError, Message: "internal error"}
