package api

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"ragd"
)

// serverInfo answers GET /.
type serverInfo struct {
	Name        string `json:"name"`
	Version     string `json:"version"`
	Description string `json:"description"`
}

func (h *handlers) info(c echo.Context) error {
	return c.JSON(http.StatusOK, serverInfo{Name: "ragd", Version: ragd.Version,
		Description: "Self-hosted knowledge-base server for LLM agents: asynchronous ingest into Weaviate, hybrid search, MCP and REST."})
}

type healthBody struct {
	Status     string            `json:"status"`
	Components map[string]bool   `json:"components"`
	Breakers   map[string]string `json:"breakers" jsonschema:"circuit breaker per dependency: closed, half-open or open"`
}

func (h *handlers) health(c echo.Context) error {
	report := h.svc.Health.Health(c.Request().Context())
	if !report.Healthy {
		return c.JSON(http.StatusServiceUnavailable, healthBody{Status: "unhealthy", Components: report.Components, Breakers: report.Breakers})
	}
	return c.JSON(http.StatusOK, healthBody{Status: "healthy", Components: report.Components, Breakers: report.Breakers})
}
