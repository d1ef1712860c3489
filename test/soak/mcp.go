package soak

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"time"
)

// mcpCall is one stateless tools/call over streamable HTTP. withMeta adds
// a progress token, which sends the call through the go-sdk's own
// per-request session instead of ragd's fast path: both are soaked.
func (c *Client) mcpCall(ctx context.Context, op, tool string, args map[string]any, withMeta bool) bool {
	params := map[string]any{"name": tool, "arguments": args}
	if withMeta {
		params["_meta"] = map[string]any{"progressToken": "soak"}
	}
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params})
	start := time.Now()
	out, ok := c.call(ctx, op, http.StatusOK, http.MethodPost, "/mcp", "application/json", body)
	if !ok {
		return false
	}
	if problem := mcpProblem(out); problem != "" {
		c.rec.Fail(op, time.Since(start), problem, string(out))
		return false
	}
	c.rec.OK(op, time.Since(start))
	return true
}

// mcpProblem says what is wrong with a tools/call answer (JSON, or SSE
// events whose last data line is the response), or "" if nothing is.
func mcpProblem(out []byte) string {
	msg := bytes.TrimSpace(out)
	if bytes.HasPrefix(msg, []byte("event:")) || bytes.HasPrefix(msg, []byte("data:")) {
		msg = nil
		for line := range bytes.Lines(out) {
			if d, ok := bytes.CutPrefix(bytes.TrimSpace(line), []byte("data:")); ok {
				msg = d
			}
		}
	}
	var resp struct {
		Error  *struct{ Message string } `json:"error"`
		Result *struct {
			IsError bool `json:"isError"`
		} `json:"result"`
	}
	switch err := json.Unmarshal(msg, &resp); {
	case err != nil:
		return "bad json-rpc"
	case resp.Error != nil:
		return fmt.Sprintf("json-rpc error %q", resp.Error.Message)
	case resp.Result == nil:
		return "no result"
	case resp.Result.IsError:
		return "isError"
	}
	return ""
}
