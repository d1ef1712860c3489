package mcp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strconv"
	"strings"
)

// DefaultMaxBatchCalls is the most messages one JSON-RPC batch may hold
// when Config.MaxBatchCalls is not positive.
const DefaultMaxBatchCalls = 50

// JSON-RPC 2.0 error codes.
const (
	codeParseError     = -32700
	codeInvalidRequest = -32600
	codeMethodNotFound = -32601
)

// protocolErrors answers malformed JSON-RPC with the protocol's error codes
// in a JSON-RPC error object, where the SDK's handler answers with a plain
// text 400: -32700 for a body that is not JSON, -32600 for JSON that is not
// a request or a batch of more than maxBatch messages, -32601 for a method
// the server does not have. Agents' clients parse these; they cannot parse
// prose. A non-empty body not labelled application/json gets 415 before it
// is parsed, as at every JSON endpoint of ragd (the SDK checks too, but only
// after the body has been read as JSON here).
func protocolErrors(next http.Handler, maxBody int64, maxBatch int) http.Handler {
	if maxBatch <= 0 {
		maxBatch = DefaultMaxBatchCalls
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			next.ServeHTTP(w, r)
			return
		}
		body, err := io.ReadAll(io.LimitReader(r.Body, maxBody+1))
		if err != nil {
			writeRPCError(w, http.StatusBadRequest, codeParseError, "cannot read the request body")
			return
		}
		if int64(len(body)) > maxBody {
			http.Error(w, "request body too large", http.StatusRequestEntityTooLarge)
			return
		}
		if ct := r.Header.Get("Content-Type"); len(bytes.TrimSpace(body)) > 0 && !isJSON(ct) {
			writeRPCError(w, http.StatusUnsupportedMediaType, codeInvalidRequest, unsupportedType(ct))
			return
		}
		if code, msg := checkMessage(body, maxBatch); code != 0 {
			writeRPCError(w, http.StatusBadRequest, code, msg)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		next.ServeHTTP(&rewriter{ResponseWriter: w}, r)
	})
}

// checkMessage validates the envelope of a JSON-RPC message or of a batch of
// at most maxBatch.
func checkMessage(body []byte, maxBatch int) (int, string) {
	trimmed := bytes.TrimSpace(body)
	if !json.Valid(trimmed) {
		return codeParseError, "Parse error: the body is not valid JSON"
	}
	var msgs []json.RawMessage
	if len(trimmed) > 0 && trimmed[0] == '[' {
		if err := json.Unmarshal(trimmed, &msgs); err != nil || len(msgs) == 0 {
			return codeInvalidRequest, "Invalid Request: empty batch"
		}
		// Each call may search or ingest: one request must not run
		// thousands of them.
		if len(msgs) > maxBatch {
			return codeInvalidRequest, fmt.Sprintf("Invalid Request: batch of %d messages exceeds the limit of %d", len(msgs), maxBatch)
		}
	} else {
		msgs = []json.RawMessage{trimmed}
	}
	for _, m := range msgs {
		var env struct {
			JSONRPC *string          `json:"jsonrpc"`
			Method  *json.RawMessage `json:"method"`
			Result  *json.RawMessage `json:"result"`
			Error   *json.RawMessage `json:"error"`
		}
		if err := json.Unmarshal(m, &env); err != nil {
			return codeInvalidRequest, "Invalid Request: a message must be a JSON object"
		}
		if env.JSONRPC == nil || *env.JSONRPC != "2.0" {
			return codeInvalidRequest, `Invalid Request: "jsonrpc" must be "2.0"`
		}
		if env.Method == nil && env.Result == nil && env.Error == nil {
			return codeInvalidRequest, `Invalid Request: "method" is missing`
		}
		if env.Method != nil {
			var method string
			if json.Unmarshal(*env.Method, &method) != nil || method == "" {
				return codeInvalidRequest, `Invalid Request: "method" must be a non-empty string`
			}
		}
	}
	return 0, ""
}

// isJSON reports whether a Content-Type is application/json, parameters
// such as charset allowed.
func isJSON(contentType string) bool {
	mt, _, err := mime.ParseMediaType(contentType)
	return err == nil && mt == "application/json"
}

// unsupportedType is the 415 message for a body labelled contentType.
func unsupportedType(contentType string) string {
	got := "none"
	if contentType != "" {
		got = strconv.Quote(contentType)
	}
	return "Unsupported Content-Type " + got + ": send the body as application/json"
}

func writeRPCError(w http.ResponseWriter, status, code int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]any{"jsonrpc": "2.0", "id": nil, "error": map[string]any{"code": code, "message": msg}})
}

// rewriter turns the SDK's plain-text 400 for an unknown method into a
// -32601 error object; everything else passes through untouched.
type rewriter struct {
	http.ResponseWriter
	intercept bool
	buf       bytes.Buffer
}

func (rw *rewriter) WriteHeader(status int) {
	if status == http.StatusBadRequest && strings.HasPrefix(rw.Header().Get("Content-Type"), "text/plain") {
		rw.intercept = true
		return
	}
	rw.ResponseWriter.WriteHeader(status)
}

func (rw *rewriter) Write(b []byte) (int, error) {
	if !rw.intercept {
		return rw.ResponseWriter.Write(b)
	}
	rw.buf.Write(b)
	if bytes.HasSuffix(rw.buf.Bytes(), []byte("\n")) {
		code := codeInvalidRequest
		if strings.Contains(rw.buf.String(), "not handled") || strings.Contains(rw.buf.String(), "unsupported") {
			code = codeMethodNotFound
		}
		rw.Header().Del("Content-Length")
		writeRPCError(rw.ResponseWriter, http.StatusBadRequest, code, strings.TrimSpace(rw.buf.String()))
		rw.intercept = false
	}
	return len(b), nil
}

func (rw *rewriter) Flush() {
	if f, ok := rw.ResponseWriter.(http.Flusher); ok && !rw.intercept {
		f.Flush()
	}
}
