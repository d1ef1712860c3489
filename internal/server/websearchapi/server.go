// Package websearchapi serves ragd's web search to agents of the "agentic"
// design: a JSON-RPC 2.0 endpoint (initialize, list_tools, search, shutdown)
// and a Server-Sent Events stream of results, both over a
// websearch.Provider.
package websearchapi

import (
	"log/slog"
	"time"

	"ragd/internal/adapter/websearch"
)

// Info names the server in the initialize result.
type Info struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// Server answers JSON-RPC calls (ServeJSONRPC) and streams results
// (ServeStream). It is safe for concurrent use and keeps no per-client
// state, so any replica can answer any request.
type Server struct {
	p         websearch.Provider
	info      Info
	log       *slog.Logger
	methods   map[string]method
	keepAlive time.Duration
	maxBatch  int
}

// DefaultMaxBatch is the most calls one batch may hold unless WithMaxBatch
// says otherwise.
const DefaultMaxBatch = 50

// Option adjusts a Server.
type Option func(*Server)

// WithMaxBatch caps the calls of one batch at n (n > 0); a larger batch is
// refused whole with -32600, since each call may hit the provider.
func WithMaxBatch(n int) Option {
	return func(s *Server) {
		if n > 0 {
			s.maxBatch = n
		}
	}
}

// keepAliveEvery is how often a waiting stream sends an SSE comment, so
// proxies with idle timeouts (often 60 s) do not cut a slow, retried search.
const keepAliveEvery = 15 * time.Second

// New returns a server over p; a nil p means web search is not configured,
// which search calls and streams report with websearch.ErrNotConfigured's
// message. A nil log discards.
func New(p websearch.Provider, info Info, log *slog.Logger, opts ...Option) *Server {
	if info.Name == "" {
		info.Name = "ragd"
	}
	if info.Version == "" {
		info.Version = "dev"
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	s := &Server{p: p, info: info, log: log, keepAlive: keepAliveEvery, maxBatch: DefaultMaxBatch}
	for _, o := range opts {
		o(s)
	}
	s.methods = map[string]method{
		"initialize": s.initialize,
		"list_tools": s.listTools,
		"search":     s.search,
		"shutdown":   s.shutdown,
	}
	return s
}

// providerName is for logs and error data.
func (s *Server) providerName() string {
	if s.p == nil {
		return ""
	}
	return s.p.Name()
}
