// Package mcpserver serves ragd's tools over the Model Context Protocol, with the
// official Go SDK: streamable HTTP (stateless by default, so replicas need no
// sticky sessions) and stdio. Tools are thin adapters over the search, answer
// and library services.
package mcpserver

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"ragd"
	"ragd/internal/adapter/websearch"
	"ragd/internal/platform/envelope"
	"ragd/internal/platform/telemetry"
)

// Config configures the MCP server.
type Config struct {
	// WaitTimeout bounds a wait:true ingest; keep it under clients' 60 s.
	WaitTimeout time.Duration
	// Stateless serves each HTTP request without a session.
	Stateless bool
	// MaxBodyBytes bounds an HTTP request body.
	MaxBodyBytes int64
	// MaxBatchCalls bounds the messages of one JSON-RPC batch over HTTP;
	// 0 means DefaultMaxBatchCalls.
	MaxBatchCalls int
	// DefaultNamespace selects whose profile tools are listed and callable.
	DefaultNamespace string
	// Profiles declare namespaced tools.
	Profiles []Profile
	// Web, when set, adds core_search_web.
	Web websearch.Provider
	// Telemetry, when set, gives each tool call a span.
	Telemetry *telemetry.Provider
	// TaskRetention is how long a finished job stays readable
	// (jobs.retention), which an MCP task reports as its ttl; 0 means 24 h.
	TaskRetention time.Duration
}

// Server is ragd's MCP server.
type Server struct {
	svc    Services
	cfg    Config
	log    *slog.Logger
	server *sdk.Server
	fast   *fastCalls
	// tasks serves MCP Tasks on stateless HTTP (tasks.go, taskwire.go).
	tasks *taskWire

	// completable names the prompts and tools whose kb_name and
	// document_id arguments completion/complete answers for.
	completable map[string]bool

	defsOnce sync.Once
	defs     []*sdk.Tool
	defsErr  error
}

// New registers the core tools and the default namespace's profile tools.
// A profile with a bad or side-effecting name is a start-up error.
func New(svc Services, cfg Config, log *slog.Logger) (*Server, error) {
	if cfg.WaitTimeout <= 0 {
		cfg.WaitTimeout = 45 * time.Second
	}
	m := &Server{svc: svc, cfg: cfg, log: log}
	impl := &sdk.Implementation{Name: "ragd", Title: "ragd knowledge base", Version: ragd.Version}
	m.server = sdk.NewServer(impl, &sdk.ServerOptions{Instructions: instructions, Logger: sdkLogger(log), CompletionHandler: m.complete})
	m.completable = map[string]bool{kbAnswerPrompt.Name: true, kbSummarizePrompt.Name: true}
	m.fast = &fastCalls{handlers: map[string]sdk.ToolHandler{}, every: map[string]sdk.ToolHandler{}, impl: impl}
	taskTools := map[string]sdk.ToolHandler{}
	tools := toolSet{m.server, m.fast}
	core := m.coreTools()
	if cfg.Web != nil {
		core = append(core, m.searchWebTool())
	}
	if svc.Sources != nil {
		core = append(core, m.sourceTools()...)
	}
	byName := map[string]tool{}
	for _, t := range core {
		byName[t.name] = t
		m.completable[t.name] = true
		t.register(tools, &sdk.Tool{Name: t.name, Description: t.description, Annotations: &t.annotations}, preset{})
		if t.tasks {
			taskTools[t.name] = m.fast.every[t.name]
		}
	}
	for _, p := range cfg.Profiles {
		name, base, err := p.validate(byName)
		if err != nil {
			return nil, err
		}
		if p.Namespace != cfg.DefaultNamespace {
			continue // declared, valid, but not this server's namespace
		}
		ann := base.annotations
		desc := p.Description
		if desc == "" {
			desc = base.description
		}
		base.register(tools, &sdk.Tool{Name: name, Description: desc, Annotations: &ann}, p.preset())
		m.completable[name] = true
		if base.tasks {
			taskTools[name] = m.fast.every[name]
		}
		log.Info("profile tool registered", "tool", name, "base", base.name, "kb_name", p.preset().KBName)
	}
	m.addResources()
	m.addPrompts()
	m.tasks = newTaskWire(svc.Library, taskTools, cfg.TaskRetention, impl)
	return m, nil
}

const instructions = "ragd is a knowledge base. Index documents with core_ingest / core_ingest_directory " +
	"(asynchronous: poll core_job_status), then answer questions with core_query or fetch passages with core_retrieve_text. " +
	"Namespaces (kb_name) keep collections apart. Every document is a resource (ragd://{kb_name}/documents/{document_id}, " +
	"listed by resources/list) and every passage too (ragd://{kb_name}/chunks/{chunk_id}: open a cited source by its chunk id); " +
	"the prompts kb_answer and kb_summarize give grounded prompts to run on your own model."

// HTTPHandler serves streamable HTTP.
func (m *Server) HTTPHandler() http.Handler { return m.httpHandler(m.cfg.Stateless) }

// httpHandler serves streamable HTTP, answering plain tool calls itself
// when fast (see fastCalls).
func (m *Server) httpHandler(fast bool) http.Handler {
	limit := m.cfg.MaxBodyBytes
	if limit <= 0 {
		limit = sdk.DefaultMaxRequestBodyBytes
	}
	next := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return m.server },
		&sdk.StreamableHTTPOptions{Stateless: m.cfg.Stateless, Logger: sdkLogger(m.log), MaxRequestBodyBytes: limit,
			PropagateRequestCancellation: true})
	var fastServe func(http.ResponseWriter, *http.Request, *envelope.Envelope) bool
	if fast {
		// Tasks need no session but are served only where every request
		// stands alone: stateless HTTP.
		fastServe = func(w http.ResponseWriter, r *http.Request, env *envelope.Envelope) bool {
			if m.tasks.serve(w, r, env) {
				return true
			}
			if advertises(env, r.Header.Get("MCP-Protocol-Version") >= newProtocol) {
				m.tasks.advertise(next, w, r, env.Method)
				return true
			}
			return m.fast.serve(w, r, env)
		}
	}
	return protocolErrors(next, limit, m.cfg.MaxBatchCalls, fastServe)
}

// RunStdio serves one client on stdin/stdout until it disconnects or ctx ends.
func (m *Server) RunStdio(ctx context.Context) error {
	return m.server.Run(ctx, &sdk.StdioTransport{})
}

// Definitions are the tools exactly as clients list them, read through an
// in-memory client session so that GET /mcp/tools can never drift from MCP.
func (m *Server) Definitions(ctx context.Context) ([]*sdk.Tool, error) {
	m.defsOnce.Do(func() {
		ct, st := sdk.NewInMemoryTransports()
		ss, err := m.server.Connect(ctx, st, nil)
		if err != nil {
			m.defsErr = err
			return
		}
		defer ss.Close()
		client := sdk.NewClient(&sdk.Implementation{Name: "ragd-definitions", Version: ragd.Version}, nil)
		cs, err := client.Connect(ctx, ct, nil)
		if err != nil {
			m.defsErr = err
			return
		}
		defer cs.Close()
		for t, err := range cs.Tools(ctx, nil) {
			if err != nil {
				m.defsErr = fmt.Errorf("list tools: %w", err)
				return
			}
			m.defs = append(m.defs, t)
		}
	})
	return m.defs, m.defsErr
}
