package api

import (
	"net/http"
	"strings"
	"sync"

	"github.com/labstack/echo/v4"
)

// toolInfo describes one tool in GET /tools.
type toolInfo struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	Endpoint    string `json:"endpoint"`
	Method      string `json:"method"`
}

type toolList struct {
	Tools []toolInfo `json:"tools"`
	Count int        `json:"count"`
}

func (h *handlers) tools(c echo.Context) error {
	list := toolList{Tools: []toolInfo{}}
	for _, r := range routes() {
		if r.tool {
			list.Tools = append(list.Tools, toolInfo{Name: strings.TrimPrefix(r.op.Path, "/tools/"),
				Description: r.op.Summary, Endpoint: r.op.Path, Method: r.op.Method})
		}
	}
	list.Count = len(list.Tools)
	return c.JSON(http.StatusOK, list)
}

var (
	specOnce sync.Once
	spec     []byte
	specErr  error
)

func (h *handlers) openAPI(c echo.Context) error {
	specOnce.Do(func() { spec, specErr = Spec() })
	if specErr != nil {
		return specErr
	}
	return c.Blob(http.StatusOK, echo.MIMEApplicationJSON, spec)
}

// mcpTools lists the MCP tools exactly as MCP clients see them.
func (h *handlers) mcpTools(c echo.Context) error {
	if h.mcp == nil {
		return echo.NewHTTPError(http.StatusNotFound, "MCP is not enabled")
	}
	defs, err := h.mcp.Definitions(c.Request().Context())
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, mcpToolList{Tools: defs, Count: len(defs)})
}

type mcpToolList struct {
	Tools any `json:"tools" jsonschema:"the MCP tool definitions: name, description, inputSchema, outputSchema, annotations"`
	Count int `json:"count"`
}

// searchRPC serves the web-search JSON-RPC 2.0 endpoint.
func (h *handlers) searchRPC(c echo.Context) error {
	if h.web == nil {
		return echo.NewHTTPError(http.StatusNotFound, "web search JSON-RPC is not enabled")
	}
	h.web.ServeJSONRPC(c.Response(), c.Request())
	return nil
}

// searchStream serves web-search results as server-sent events.
func (h *handlers) searchStream(c echo.Context) error {
	if h.web == nil {
		return echo.NewHTTPError(http.StatusNotFound, "web search streaming is not enabled")
	}
	h.web.ServeStream(c.Response(), c.Request())
	return nil
}

// jsonRPCRequest and jsonRPCResponse document POST / in the OpenAPI spec.
type jsonRPCRequest struct {
	JSONRPC string         `json:"jsonrpc" enum:"2.0"`
	ID      any            `json:"id,omitempty" jsonschema:"omitted for a notification"`
	Method  string         `json:"method" enum:"initialize,list_tools,search,shutdown"`
	Params  map[string]any `json:"params,omitempty" jsonschema:"search: {query | topic, max_results 1-20 (default 5)}"`
}

type jsonRPCResponse struct {
	JSONRPC string `json:"jsonrpc"`
	ID      any    `json:"id"`
	Result  any    `json:"result,omitempty"`
	Error   any    `json:"error,omitempty" jsonschema:"{code, message}: -32700 parse error, -32600 invalid request, -32601 method not found, -32602 invalid params, -32000 web search not configured, -32001 provider failed"`
}
