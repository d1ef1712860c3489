package mcpserver

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"

	"ragd"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"ragd/internal/authn"
	"ragd/internal/platform/envelope"
)

// DefaultMaxBatchCalls is the most messages one JSON-RPC batch may hold
// when Config.MaxBatchCalls is not positive.
const DefaultMaxBatchCalls = 50

// protocolErrors answers malformed JSON-RPC with the protocol's error codes
// in a JSON-RPC error object, where the SDK's handler answers with a plain
// text 400: -32700 for a body that is not JSON, -32600 for JSON that is not
// a request or a batch of more than maxBatch messages, -32601 for a method
// the server does not have. Agents' clients parse these; they cannot parse
// prose. A non-empty body not labelled application/json gets 415 before it
// is parsed, as at every JSON endpoint of ragd (the SDK checks too, but only
// after the body has been read as JSON here).
//
// fast, when not nil, answers a single message it can serve without the
// SDK (see fastCalls) and reports whether it did.
func protocolErrors(next http.Handler, maxBody int64, maxBatch int, fast func(http.ResponseWriter, *http.Request, *envelope.Envelope) bool) http.Handler {
	if maxBatch <= 0 {
		maxBatch = DefaultMaxBatchCalls
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if msg := unsupportedVersion(r.Header.Get("MCP-Protocol-Version")); msg != "" {
			writeRPCError(w, http.StatusBadRequest, envelope.InvalidRequest, msg)
			return
		}
		if r.Method != http.MethodPost {
			next.ServeHTTP(w, r)
			return
		}
		body, err := io.ReadAll(io.LimitReader(r.Body, maxBody+1))
		if err != nil {
			status, msg := authn.UnreadBody(err, "the request body")
			writeRPCError(w, status, envelope.ParseError, msg)
			return
		}
		if int64(len(body)) > maxBody {
			writeRPCError(w, http.StatusRequestEntityTooLarge, envelope.InvalidRequest, fmt.Sprintf("request body exceeds %d bytes", maxBody))
			return
		}
		if err := ragd.CheckJSON(r.Header.Get("Content-Type")); len(bytes.TrimSpace(body)) > 0 && err != nil {
			writeRPCError(w, http.StatusUnsupportedMediaType, envelope.InvalidRequest, err.Error())
			return
		}
		single, code, msg := checkMessage(body, maxBatch)
		if code != 0 {
			writeRPCError(w, http.StatusBadRequest, code, msg)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		if single != nil && fast != nil && fast(w, r, single) {
			return
		}
		next.ServeHTTP(&rewriter{ResponseWriter: w}, r)
	})
}

// checkMessage validates the envelope of a JSON-RPC message or of a batch of
// at most maxBatch, answering in the words MCP clients know. A valid single
// message (not a batch) comes back checked.
func checkMessage(body []byte, maxBatch int) (*envelope.Envelope, int, string) {
	msgs, batch, p := envelope.Split(body, maxBatch)
	var env envelope.Envelope
	for i := 0; p == nil && i < len(msgs); i++ {
		env, p = envelope.Check(msgs[i])
	}
	switch {
	case p == nil && batch:
		return nil, 0, ""
	case p == nil:
		return &env, 0, ""
	case p.Code == envelope.ParseError:
		return nil, p.Code, "Parse error: " + p.Reason
	}
	return nil, p.Code, "Invalid Request: " + p.Reason
}

// unsupportedVersion is the refusal of an MCP-Protocol-Version header the
// server does not support, naming the ones it does, "" when the header is
// absent or supported. The MCP spec asks for a 400; the SDK refuses an
// older version than it knows but serves any later one (9999-99-99) as
// its newest.
func unsupportedVersion(v string) string {
	supported := sdk.SupportedProtocolVersions()
	if v == "" || slices.Contains(supported, v) {
		return ""
	}
	if len(v) > 40 {
		v = strings.ToValidUTF8(v[:40], "") + "…"
	}
	return fmt.Sprintf("Bad Request: unsupported MCP-Protocol-Version %q (supported versions: %s)", v, strings.Join(supported, ", "))
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
		code := envelope.InvalidRequest
		if strings.Contains(rw.buf.String(), "not handled") || strings.Contains(rw.buf.String(), "unsupported") {
			code = envelope.MethodNotFound
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
