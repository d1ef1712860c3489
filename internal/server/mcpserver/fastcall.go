package mcpserver

import (
	"bytes"
	"encoding/json"
	"errors"
	"maps"
	"net/http"
	"sync/atomic"

	sdkauth "github.com/modelcontextprotocol/go-sdk/auth"
	sdkjsonrpc "github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"ragd/internal/platform/envelope"
)

// fastCalls answers the commonest stateless message, a plain tools/call,
// without the SDK's per-request session. In stateless mode the SDK treats
// each HTTP request as a session: it connects one (synthesizing its
// initialize state), reads the body twice more, decodes each message with
// a fresh 32 KiB buffer, runs the call on its own goroutine and closes the
// session again — on a cached search that was half of the call's time.
// Here the envelope ragd has already checked is dispatched
// straight to the tool's handler, the same handler the SDK would run, and
// the result is written as the SDK writes it (one SSE message event).
//
// Both protocol eras are served: up to 2025-11-25 a call carries no _meta;
// from 2026-07-28 on (SEP-2575) it carries its protocol version, client
// and capabilities in _meta and its method and tool name in headers, and
// its result names the server (fastmeta.go, fastrequest.go).
//
// Anything else — a batch, another method, a progress token or other
// _meta, a client that can be asked for input, an unknown tool, a
// protocol version or headers the SDK would judge, a result asking for
// input — goes to the SDK unchanged, so its answers stay the protocol's;
// TestFastCallsAnswerAsTheSDK compares the two byte for byte.
type fastCalls struct {
	handlers map[string]sdk.ToolHandler
	// every is every tool's handler, header-bound ones too (task tools run
	// through it).
	every map[string]sdk.ToolHandler
	// impl is the server's, which results name from 2026-07-28 on.
	impl   *sdk.Implementation
	served atomic.Int64 // calls answered here; tests read it
}

// toolSet is the SDK server as the tools register on it, keeping each
// tool's handler for fastCalls.
type toolSet struct {
	*sdk.Server
	fast *fastCalls
}

// AddTool registers t on the SDK server and keeps its handler, unless an
// argument of t travels in a header too (x-mcp-header, SEP-2243), which
// the SDK checks.
func (s toolSet) AddTool(t *sdk.Tool, h sdk.ToolHandler) {
	s.Server.AddTool(t, h)
	s.fast.every[t.Name] = h
	if headerBound(t) {
		delete(s.fast.handlers, t.Name)
		return
	}
	s.fast.handlers[t.Name] = h
}

// headerBound reports whether t's input schema may bind an argument to a
// header.
func headerBound(t *sdk.Tool) bool {
	raw, err := json.Marshal(t.InputSchema)
	return err != nil || bytes.Contains(raw, []byte("x-mcp-header"))
}

// serve answers env if it is a plain tools/call of a known tool and
// reports whether it did; when it did not, nothing was written.
func (f *fastCalls) serve(w http.ResponseWriter, r *http.Request, env *envelope.Envelope) bool {
	if env.Method != "tools/call" || env.Params == nil {
		return false
	}
	version, ok := fastRequest(r)
	if !ok {
		return false
	}
	id, ok := callID(env.ID)
	if !ok {
		return false
	}
	p, ok := decodeCall(env.Params)
	if !ok {
		return false
	}
	modern := version >= newProtocol
	if modern && (!standardHeaders(r.Header, p.Name) || !plainMeta(p.Meta, version)) || !modern && len(p.Meta) > 0 {
		return false
	}
	h, ok := f.handlers[p.Name]
	if !ok {
		return false
	}
	req := &sdk.CallToolRequest{
		Params: &sdk.CallToolParamsRaw{Meta: p.Meta, Name: p.Name, Arguments: p.Arguments},
		Extra:  &sdk.RequestExtra{TokenInfo: sdkauth.TokenInfoFromContext(r.Context()), Header: r.Header},
	}
	res, err := h(r.Context(), req)
	if err == nil && (res == nil || res.InputRequests != nil) {
		// The SDK runs the call again (a handler asking for input is run
		// again with the answers anyway) and asks the client, or reports
		// the missing result, in the protocol's words.
		return false
	}
	f.served.Add(1)
	if err != nil {
		writeFailure(w, id, err, modern)
		return true
	}
	msg, err := f.resultMessage(id, res, modern)
	if err != nil {
		writeFailure(w, id, err, modern)
		return true
	}
	sseHeaders(w.Header())
	w.WriteHeader(http.StatusOK)
	buf := make([]byte, 0, len("event: message\ndata: \n\n")+len(msg))
	buf = append(append(append(buf, "event: message\ndata: "...), msg...), "\n\n"...)
	_, _ = w.Write(buf)
	return true
}

// resultMessage is the JSON-RPC response carrying res as the SDK sends it:
// content never null and, from 2026-07-28 on, the server named in _meta
// and the result marked complete (it asks for no input).
func (f *fastCalls) resultMessage(id sdkjsonrpc.ID, res *sdk.CallToolResult, modern bool) ([]byte, error) {
	out := *res // the handler's result stays as it gave it
	if out.Content == nil {
		out.Content = []sdk.Content{}
	}
	if modern {
		if _, ok := out.Meta[sdk.MetaKeyServerInfo]; !ok {
			meta := make(sdk.Meta, len(out.Meta)+1)
			maps.Copy(meta, out.Meta)
			meta[sdk.MetaKeyServerInfo] = f.impl
			out.Meta = meta
		}
	}
	// The SDK's encoding, called directly: json.Marshal would only check
	// and copy its output once more.
	raw, err := out.MarshalJSON()
	if err != nil {
		return nil, err
	}
	if modern {
		// resultType is unexported in the SDK's result; its encoding puts
		// it last when the result asks for no input.
		raw = append(raw[:len(raw)-1], `,"resultType":"complete"}`...)
	}
	// The envelope is the SDK's with the result spliced in: encoding the
	// two together would check and copy the result yet again.
	env, err := sdkjsonrpc.EncodeMessage(&sdkjsonrpc.Response{ID: id, Result: json.RawMessage("0")})
	if err != nil || !bytes.HasSuffix(env, []byte(`"result":0}`)) {
		return sdkjsonrpc.EncodeMessage(&sdkjsonrpc.Response{ID: id, Result: raw})
	}
	msg := make([]byte, 0, len(env)+len(raw))
	return append(append(append(msg, env[:len(env)-2]...), raw...), '}'), nil
}

// writeFailure answers a call whose handler failed as the SDK does: an
// error in an SSE event, or from 2026-07-28 on, for the codes SEP-2575
// gives an HTTP status, the bare error with that status.
func writeFailure(w http.ResponseWriter, id sdkjsonrpc.ID, err error, modern bool) {
	msg, _ := sdkjsonrpc.EncodeMessage(&sdkjsonrpc.Response{ID: id, Error: err})
	sseHeaders(w.Header())
	if status := errorStatus(err); modern && status != 0 {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_, _ = w.Write(msg)
		return
	}
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(append(append([]byte("event: message\ndata: "), msg...), "\n\n"...))
}

// errorStatus is the HTTP status SEP-2575 gives a JSON-RPC error, 0 for
// none.
func errorStatus(err error) int {
	var werr *sdkjsonrpc.Error
	if !errors.As(err, &werr) {
		return 0
	}
	switch werr.Code {
	case sdkjsonrpc.CodeMethodNotFound:
		return http.StatusNotFound
	case sdkjsonrpc.CodeInvalidParams, sdk.CodeUnsupportedProtocolVersion, sdk.CodeMissingRequiredClientCapabilities:
		return http.StatusBadRequest
	}
	return 0
}

// sseHeaders are the headers of the SDK's answer to a call.
func sseHeaders(h http.Header) {
	h.Set("Cache-Control", "no-cache, no-transform")
	h.Set("Content-Type", "text/event-stream")
	h.Set("Connection", "keep-alive")
}
