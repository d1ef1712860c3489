package api

import (
	"strings"

	"github.com/labstack/echo/v4"

	"ragd/internal/platform/telemetry"
	"ragd/internal/server/console"
)

// traceRequests gives each API request a server span named by its route
// (telemetry.otlp_endpoint set; without it this middleware is not
// installed). /mcp gets none of its own: each tool call is a span, whose
// parent the request's traceparent header is unless the call's _meta
// names another. Scrapes, probes and static pages are not traced.
func traceRequests(tel *telemetry.Provider, h *handlers) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			r := c.Request()
			route := c.Path()
			if route == "/mcp" {
				c.SetRequest(r.WithContext(tel.Extract(r.Context(), r.Header)))
				return next(c)
			}
			if untraced(route) {
				return next(c)
			}
			ctx, span := tel.StartRequest(r, route)
			if tool, ok := strings.CutPrefix(route, "/tools/"); ok && span.Recording() {
				span.Set(telemetry.String(telemetry.KeyTool, tool))
			}
			c.SetRequest(r.WithContext(ctx))
			err := next(c)
			if err != nil {
				// Written here, as observe does, to know the status.
				h.handleError(err, c)
				err = nil
			}
			span.EndRequest(c.Response().Status)
			return err
		}
	}
}

// untraced are the routes no span is worth: metrics scrapes, health
// probes, the console's and the API docs' files, the Asynq UI, and paths
// that matched no route.
func untraced(route string) bool {
	switch route {
	case "", "/metrics", "/health", "/openapi.json":
		return true
	}
	for _, prefix := range []string{"/monitoring", "/docs", console.Prefix} {
		if strings.HasPrefix(route, prefix) {
			return true
		}
	}
	return false
}
