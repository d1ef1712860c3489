// Package api is ragd's REST API on Echo: thin handlers that decode a request,
// call a service (search, answer, library) and encode its answer or its
// typed error.
package api

import (
	"context"
	"log/slog"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"ragd/internal/authn"
	"ragd/internal/authn/oauth"
	"ragd/internal/platform/promexport"
	"ragd/internal/platform/telemetry"
	"ragd/internal/server/mcpserver"
	"ragd/internal/server/openapi"
	"ragd/internal/server/websearchapi"
)

// Options configure the HTTP server.
type Options struct {
	MaxBodyBytes int64
	// MaxUploadBytes bounds a POST /documents body instead (0:
	// MaxBodyBytes).
	MaxUploadBytes int64
	// BodyTimeout bounds the reading of a whole request body (408 past
	// it), BodyIdleTimeout instead each read of the bodies of the routes
	// marked slowBody (uploads, archive imports); 0 means no bound.
	BodyTimeout, BodyIdleTimeout time.Duration
	// Monitoring, when set, is mounted at /monitoring (the Asynq web UI).
	Monitoring http.Handler
	// Metrics, when set, records request latencies and serves /metrics.
	Metrics *promexport.Metrics
	// MCP, when set, is served at /mcp and its tools listed at /mcp/tools.
	MCP *mcpserver.Server
	// Auth, when set, guards every route but the public ones and checks
	// the Origin header; its protected-resource metadata is served.
	Auth *authn.Authenticator
	// OAuth, when set, is ragd's own authorization server (auth.mode
	// oauth), served at oauth.Paths.
	OAuth *oauth.Server
	// WebSearch, when set, serves the web-search JSON-RPC endpoint at
	// POST / and its SSE stream at GET /stream.
	WebSearch *websearchapi.Server
	// Pin, when set, fixes each request's context to the embedder and
	// collection live when it arrives (live.Holder.Pin), so a query is
	// embedded and searched in one vector space across a switch.
	Pin func(context.Context) (context.Context, func())
	// Telemetry, when set, gives each request a span (trace.go).
	Telemetry *telemetry.Provider
	Log       *slog.Logger
}

// New returns the Echo server with every route registered.
func New(svc Services, opts Options) *echo.Echo {
	e := echo.New()
	e.HideBanner, e.HidePort = true, true
	e.JSONSerializer = jsonSerializer{}
	h := &handlers{svc: svc, log: opts.Log, metrics: opts.Metrics, mcp: opts.MCP, web: opts.WebSearch}
	e.HTTPErrorHandler = h.handleError
	if opts.Telemetry != nil {
		e.Use(traceRequests(opts.Telemetry, h))
	}
	e.Use(h.observe, recoverMiddleware(opts.Log))
	e.Use(bodyDeadline(opts.BodyTimeout, opts.BodyIdleTimeout, slowBodies()))
	if opts.Auth != nil {
		e.Use(echo.WrapMiddleware(opts.Auth.Middleware))
		meta := echo.WrapHandler(opts.Auth.MetadataHandler())
		e.GET(authn.MetadataPath, meta)
		e.GET(authn.MetadataPath+"/*", meta)
	}
	if opts.OAuth != nil {
		as := echo.WrapHandler(opts.OAuth.Handler())
		for _, p := range oauth.Paths {
			e.Any(p, as)
		}
	}
	e.Use(bodyLimit(opts.MaxBodyBytes, ownBodyLimit(map[string]int64{"POST " + uploadPath: opts.MaxUploadBytes})))
	if opts.Pin != nil {
		e.Use(pinRequests(opts.Pin))
	}
	for _, r := range routes() {
		handle := r.handler
		e.Add(r.op.Method, r.op.Path, func(c echo.Context) error { return handle(h, c) })
	}
	if opts.MCP != nil {
		e.Any("/mcp", echo.WrapHandler(opts.MCP.HTTPHandler()))
	}
	docs := echo.WrapHandler(openapi.SwaggerUI("/docs", "/openapi.json"))
	e.GET("/docs", docs)
	e.GET("/docs/*", docs)
	mountConsole(e, opts.Auth)
	if opts.Monitoring != nil {
		mon := echo.WrapHandler(opts.Monitoring)
		e.Any("/monitoring", mon)
		e.Any("/monitoring/*", mon)
	}
	return e
}

type handlers struct {
	svc     Services
	log     *slog.Logger
	metrics *promexport.Metrics
	mcp     *mcpserver.Server
	web     *websearchapi.Server
}

// observe records each request's latency by route template (not by raw path,
// which would make one series per document id).
func (h *handlers) observe(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		start := time.Now()
		err := next(c)
		if h.metrics != nil {
			status := c.Response().Status
			if err != nil {
				h.handleError(err, c)
				err = nil
				status = c.Response().Status
			}
			route := c.Path()
			if route == "" {
				route = "unmatched"
			}
			h.metrics.ObserveRequest(route, c.Request().Method, status, time.Since(start))
		}
		return err
	}
}

func (h *handlers) serveMetrics(c echo.Context) error {
	if h.metrics == nil {
		return echo.NewHTTPError(http.StatusNotFound, "metrics are not enabled")
	}
	h.metrics.Handler().ServeHTTP(c.Response(), c.Request())
	return nil
}

// pinRequests pins every request but an MCP client's event stream (GET
// /mcp), which lasts as long as the client stays and embeds nothing: a
// pin it held would keep an embedder switch waiting.
func pinRequests(pin func(context.Context) (context.Context, func())) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			r := c.Request()
			if r.Method == http.MethodGet && r.URL.Path == "/mcp" {
				return next(c)
			}
			ctx, release := pin(r.Context())
			defer release()
			c.SetRequest(r.WithContext(ctx))
			return next(c)
		}
	}
}
