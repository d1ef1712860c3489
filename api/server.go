// Package api is ragd's REST API on Echo: thin handlers that decode a request,
// call the rag service and encode its answer or its typed error.
package api

import (
	"log/slog"
	"net/http"

	"github.com/labstack/echo/v4"

	"ragd/rag"
)

// Options configure the HTTP server.
type Options struct {
	MaxBodyBytes int64
	// Monitoring, when set, is mounted at /monitoring (the Asynq web UI).
	Monitoring http.Handler
	Log        *slog.Logger
}

// New returns the Echo server with every route registered.
func New(svc *rag.Service, opts Options) *echo.Echo {
	e := echo.New()
	e.HideBanner, e.HidePort = true, true
	h := &handlers{svc: svc, log: opts.Log}
	e.HTTPErrorHandler = h.handleError
	e.Use(recoverMiddleware(opts.Log), bodyLimit(opts.MaxBodyBytes))

	e.GET("/", h.info)
	e.GET("/health", h.health)
	e.POST("/tools/rag_index", h.index)
	e.POST("/tools/rag_index_directory", h.indexDirectory)
	e.POST("/tools/rag_search", h.search)
	e.GET("/jobs/:id", h.job)
	if opts.Monitoring != nil {
		mon := echo.WrapHandler(opts.Monitoring)
		e.Any("/monitoring", mon)
		e.Any("/monitoring/*", mon)
	}
	return e
}

type handlers struct {
	svc *rag.Service
	log *slog.Logger
}
