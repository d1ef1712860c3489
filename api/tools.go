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
	Tools any `json:"tools" doc:"the MCP tool definitions: name, description, inputSchema, outputSchema, annotations"`
	Count int `json:"count"`
}
