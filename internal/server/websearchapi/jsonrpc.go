package websearchapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"runtime/debug"
	"sync"

	"ragd"

	"ragd/internal/platform/envelope"
)

const (
	// maxBodyBytes caps a request body; a search call is a few hundred bytes.
	maxBodyBytes = 1 << 20
	// batchParallelism bounds the calls of one batch run at once.
	batchParallelism = 4
)

// ServeJSONRPC answers a JSON-RPC 2.0 request or batch POSTed as the body.
// Answers are HTTP 200 application/json, errors included, as JSON-RPC over
// HTTP does; a lone notification or an all-notification batch gets 204 and
// no body. Notifications are not run: every method is a pure query, and a
// search nobody reads would only spend provider quota. A non-empty body
// must be labelled application/json, else the answer is HTTP 415 with
// {"detail": "…"}, as the REST API's JSON endpoints answer: a browser posts
// text/plain cross-site without asking first.
func (s *Server) ServeJSONRPC(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		http.Error(w, "POST a JSON-RPC 2.0 request", http.StatusMethodNotAllowed)
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBodyBytes))
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			writeJSON(w, errorResponse(nil, invalidRequest(fmt.Sprintf("body exceeds %d bytes", maxBodyBytes))))
		}
		return // otherwise the client is gone
	}
	body = bytes.Trim(body, " \t\r\n")
	if err := ragd.CheckJSON(r.Header.Get("Content-Type")); len(body) > 0 && err != nil {
		writeDetail(w, http.StatusUnsupportedMediaType, err.Error())
		return
	}
	calls, batch, p := envelope.Split(body, s.maxBatch)
	switch {
	case p != nil:
		writeJSON(w, errorResponse(nil, problem(p)))
	case !batch:
		if resp := s.handle(r.Context(), calls[0]); resp != nil {
			writeJSON(w, resp)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	default:
		if out := s.batch(r.Context(), calls); len(out) > 0 {
			writeJSON(w, out)
		} else {
			w.WriteHeader(http.StatusNoContent)
		}
	}
}

// batch answers calls a few at a time, keeping the answers in call order
// and leaving notifications out.
func (s *Server) batch(ctx context.Context, calls []json.RawMessage) []*response {
	out := make([]*response, len(calls))
	sem := make(chan struct{}, batchParallelism)
	var wg sync.WaitGroup
	for i, c := range calls {
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			out[i] = s.handle(ctx, c)
		})
	}
	wg.Wait()
	kept := out[:0]
	for _, r := range out {
		if r != nil {
			kept = append(kept, r)
		}
	}
	return kept
}

// handle answers one call; nil means no answer is due (a notification).
func (s *Server) handle(ctx context.Context, raw json.RawMessage) *response {
	req, p := envelope.Check(raw)
	if p == nil && req.Response {
		p = &envelope.Problem{Code: envelope.InvalidRequest, Reason: `"method" must be a string`} // this server sends no requests
	}
	if p != nil {
		// An invalid request is answered even without an id: the spec's
		// examples answer {"foo": "boo"} with id null.
		return errorResponse(req.ID, problem(p))
	}
	if req.Notification() {
		return nil
	}
	m, ok := s.methods[req.Method]
	if !ok {
		return errorResponse(req.ID, &rpcError{Code: CodeMethodNotFound,
			Message: fmt.Sprintf("method not found: %q (try initialize, list_tools, search or shutdown)", req.Method)})
	}
	result, rerr := s.call(ctx, req.Method, m, req.Params)
	if rerr != nil {
		return errorResponse(req.ID, rerr)
	}
	return &response{JSONRPC: "2.0", Result: result, ID: req.ID}
}

// call runs m, turning a panic or an unencodable result into -32603 so one
// bad call cannot take down a batch or the process.
func (s *Server) call(ctx context.Context, name string, m method, params json.RawMessage) (result json.RawMessage, rerr *rpcError) {
	defer func() {
		if v := recover(); v != nil {
			s.log.ErrorContext(ctx, "searchrpc: method panicked", "method", name, "panic", v, "stack", string(debug.Stack()))
			result, rerr = nil, errInternal
		}
	}()
	v, rerr := m(ctx, params)
	if rerr != nil {
		return nil, rerr
	}
	b, err := json.Marshal(v)
	if err != nil {
		s.log.ErrorContext(ctx, "searchrpc: encoding result", "method", name, "err", err)
		return nil, errInternal
	}
	return b, nil
}

// writeDetail answers status with {"detail": detail}, the REST API's error
// shape, for failures outside JSON-RPC and SSE.
func writeDetail(w http.ResponseWriter, status int, detail any) {
	b, _ := json.Marshal(map[string]any{"detail": detail}) // strings and FieldErrors only
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(b)
}

func writeJSON(w http.ResponseWriter, v any) {
	b, err := json.Marshal(v)
	if err != nil { // responses hold only raw JSON and plain fields
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(b)
}
