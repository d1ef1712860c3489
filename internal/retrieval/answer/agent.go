package answer

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"time"

	"ragd"

	"ragd/internal/adapter/websearch"
	"ragd/internal/retrieval/search"
	"ragd/wire"
)

// Query modes that choose the route themselves.
const (
	ModeAgentic = "agentic" // the chat model picks tools; a rule-based router stands in without one
	ModeAuto    = "auto"    // agentic when a chat model is configured, else plain retrieval
)

// Routes of an agentic answer.
const (
	RouteDocuments = "documents"
	RouteWeb       = "web"
	RouteDirect    = "direct"
	RouteMixed     = "mixed"
)

const agentSystemPrompt = `You are a research assistant with tools.
- search_documents searches the user's own indexed documents (manuals, notes, reports). Use it for anything those documents may cover.
- search_web searches the public web. Use it for recent events, news, prices or anything that changes over time, and for public facts the documents would not hold.
- Answer directly, without tools, only for general knowledge or conversation that needs no lookup.
Tool results number their passages [1], [2], …; cite them the same way after each sentence that uses them.
If the tools find nothing relevant, say so instead of guessing. Answer concisely.`

var searchDocumentsTool = ragd.ChatTool{Type: "function", Function: ragd.FunctionDef{Name: "search_documents",
	Description: "Search the user's indexed documents. Returns numbered passages with their source.",
	Parameters: json.RawMessage(`{"type":"object","properties":{"query":{"type":"string","description":"what to look for"},` +
		`"top_k":{"type":"integer","minimum":1,"maximum":20,"description":"passages to return (default 5)"}},"required":["query"]}`)}}

var searchWebTool = ragd.ChatTool{Type: "function", Function: ragd.FunctionDef{Name: "search_web",
	Description: "Search the public web. Returns numbered results with title, link and snippet.",
	Parameters: json.RawMessage(`{"type":"object","properties":{"query":{"type":"string","description":"the web search query"},` +
		`"max_results":{"type":"integer","minimum":1,"maximum":20,"description":"results to return (default 5)"}},"required":["query"]}`)}}

// agent is one agentic answer in progress: what the tools found so far.
type agent struct {
	s        *Service
	plan     search.Plan
	cites    citations // what the tools found, numbered as the model was shown
	context  []search.Result
	steps    []Step
	usedDocs bool
	usedWeb  bool
}

// agentic lets the chat model pick tools in a bounded loop, or routes by
// rule when there is no model or it fails.
func (s *Service) agentic(ctx context.Context, p search.Plan) (QueryResponse, error) {
	a := &agent{s: s, plan: p}
	if s.LLM == nil {
		return a.ruleBased(ctx, "no chat model is configured")
	}
	answer, err := a.loop(ctx)
	if err != nil {
		if ctx.Err() != nil {
			return QueryResponse{}, ctx.Err()
		}
		a = &agent{s: s, plan: p, steps: a.steps}
		return a.ruleBased(ctx, "tool calling failed: "+s.publicError(ctx, "tool calling", err))
	}
	resp := a.response(answer)
	return resp, nil
}

func (a *agent) loop(ctx context.Context) (string, error) {
	tools := []ragd.ChatTool{searchDocumentsTool}
	if a.s.Web != nil {
		tools = append(tools, searchWebTool)
	}
	messages := []ragd.ChatMessage{{Role: ragd.RoleSystem, Content: agentSystemPrompt}, {Role: ragd.RoleUser, Content: a.plan.Query}}
	for step := 0; ; step++ {
		req := ragd.ChatRequest{Messages: messages, Tools: tools, ToolChoice: "auto"}
		if step >= a.s.AgentMaxSteps {
			// The step budget is spent: the model must answer with what it has.
			req.Tools, req.ToolChoice = nil, ""
			messages = append(messages, ragd.ChatMessage{Role: ragd.RoleUser,
				Content: "You have used all your tool calls. Answer now from the results above."})
			req.Messages = messages
		}
		resp, err := a.s.LLM.Complete(ctx, req)
		if err != nil {
			return "", err
		}
		calls := resp.Message.ToolCalls
		if len(calls) == 0 || req.Tools == nil {
			return strings.TrimSpace(resp.Message.Content), nil
		}
		messages = append(messages, resp.Message)
		for _, call := range calls {
			messages = append(messages, ragd.ChatMessage{Role: ragd.RoleTool, ToolCallID: call.ID, Name: call.Function.Name,
				Content: a.run(ctx, call)})
		}
	}
}

// run executes one tool call and returns what the model reads back. Bad
// arguments or a failing tool become a message to the model, not an error:
// it can retry or answer without.
func (a *agent) run(ctx context.Context, call ragd.ToolCall) string {
	start := time.Now()
	step := Step{Tool: call.Function.Name}
	var args struct {
		Query      string `json:"query"`
		TopK       int    `json:"top_k"`
		MaxResults int    `json:"max_results"`
	}
	if err := json.Unmarshal([]byte(call.Function.Arguments), &args); err != nil || strings.TrimSpace(args.Query) == "" {
		step.Error = "invalid arguments: expected a JSON object with a non-empty query"
		a.steps = append(a.steps, step)
		return "error: " + step.Error
	}
	step.Args = map[string]any{"query": args.Query}
	var out string
	var n int
	var err error
	switch call.Function.Name {
	case "search_documents":
		n, out, err = a.searchDocuments(ctx, args.Query, args.TopK)
	case "search_web":
		if a.s.Web == nil {
			err = websearch.ErrNotConfigured
		} else {
			n, out, err = a.searchWeb(ctx, args.Query, args.MaxResults)
		}
	default:
		err = &ragd.Error{Kind: ragd.KindInvalid, Message: fmt.Sprintf("unknown tool %q", call.Function.Name)}
	}
	step.TookMS, step.ResultCount = time.Since(start).Milliseconds(), n
	if err != nil {
		step.Error = a.s.publicError(ctx, "tool "+call.Function.Name, err)
		out = "error: " + step.Error
	}
	a.steps = append(a.steps, step)
	return out
}

func (a *agent) searchDocuments(ctx context.Context, query string, topK int) (int, string, error) {
	p := a.plan
	// The model phrases its own searches: the caller's other phrasings were
	// of the question, not of this query.
	p.Query, p.Queries = query, nil
	if topK >= 1 && topK <= wire.MaxTopK {
		p.TopK = topK
	}
	p = a.s.Search.Diverse(p) // diverse context for the model
	vector, err := a.s.Search.EmbedQuery(ctx, query)
	if err != nil {
		return 0, "", err
	}
	hits, err := a.s.Search.Retrieve(ctx, p, vector, false)
	if err != nil {
		return 0, "", err
	}
	a.usedDocs = a.usedDocs || len(hits) > 0
	var b strings.Builder
	if len(hits) == 0 {
		b.WriteString("No passages found.")
	}
	for _, h := range hits {
		n, added := a.cites.addHit(h)
		if !added {
			// Found before: the model has its text under the same number.
			fmt.Fprintf(&b, "[%d] %s — %s (given above)\n\n", n, h.Source, h.Path)
			continue
		}
		a.context = append(a.context, search.ToResult(h))
		fmt.Fprintf(&b, "[%d] %s — %s\n%s\n\n", n, h.Source, h.Path, h.Text)
	}
	return len(hits), b.String(), nil
}

func (a *agent) searchWeb(ctx context.Context, query string, max int) (int, string, error) {
	if max < 1 || max > 20 {
		max = 5
	}
	results, err := a.s.Web.Search(ctx, query, max)
	if err != nil {
		return 0, "", err
	}
	a.usedWeb = a.usedWeb || len(results) > 0
	var b strings.Builder
	if len(results) == 0 {
		b.WriteString("No web results.")
	}
	for _, r := range results {
		n, added := a.cites.add(Passage{Source: r.Link, Path: r.Title, Text: r.Snippet}, Source{Source: r.Link, Path: r.Title})
		if !added {
			fmt.Fprintf(&b, "[%d] %s — %s (given above)\n\n", n, r.Title, r.Link)
			continue
		}
		fmt.Fprintf(&b, "[%d] %s — %s\n%s\n\n", n, r.Title, r.Link, r.Snippet)
	}
	return len(results), b.String(), nil
}

func (a *agent) response(answer string) QueryResponse {
	resp := QueryResponse{Answer: answer, Sources: a.cites.sourceList(), Context: a.context, Steps: a.steps, Route: RouteDirect}
	switch {
	case a.usedDocs && a.usedWeb:
		resp.Route = RouteMixed
	case a.usedDocs:
		resp.Route = RouteDocuments
	case a.usedWeb:
		resp.Route = RouteWeb
	}
	for _, n := range Citations(answer, len(resp.Sources)) {
		resp.Sources[n-1].Cited = true
	}
	if resp.Context == nil {
		resp.Context = []search.Result{}
	}
	if resp.Steps == nil {
		resp.Steps = []Step{}
	}
	return resp
}

// recency words send a question to the web: the documents are a snapshot.
var recency = regexp.MustCompile(`(?i)\b(latest|today|tonight|yesterday|tomorrow|news|current(ly)?|right now|this (week|month|year)|recent(ly)?|breaking|price of|stock price|weather|score)\b|\b20[2-9][0-9]\b`)

// ruleBased routes without a model: recency questions to the web when a
// provider is configured, everything else to the documents; the answer is
// extractive. steps records the router's decision and why it stood in.
func (a *agent) ruleBased(ctx context.Context, why string) (QueryResponse, error) {
	q := a.plan.Query
	web := recency.MatchString(q) && a.s.Web != nil
	decision := "documents: no recency words"
	switch {
	case web:
		decision = "web: the question asks for recent information"
	case recency.MatchString(q):
		decision = "documents: recency words, but web search is not configured"
	}
	a.steps = append(a.steps, Step{Tool: "router", Args: map[string]any{"fallback": why, "decision": decision}})
	start := time.Now()
	step := Step{Tool: "search_documents", Args: map[string]any{"query": q}}
	var n int
	var err error
	if web {
		step.Tool = "search_web"
		n, _, err = a.searchWeb(ctx, q, a.plan.TopK)
	} else {
		n, _, err = a.searchDocuments(ctx, q, a.plan.TopK)
	}
	step.TookMS, step.ResultCount = time.Since(start).Milliseconds(), n
	if err != nil {
		step.Error = a.s.publicError(ctx, step.Tool, err)
	}
	a.steps = append(a.steps, step)
	if err != nil {
		return QueryResponse{}, err
	}
	answer, _ := Extract(q, a.cites.passages, a.s.MaxSentences)
	resp := a.response(answer)
	resp.Fallback = why
	if answer == "" {
		resp.Answer, resp.Route = NotFoundAnswer(q), RouteNotFound
	}
	return resp, nil
}
