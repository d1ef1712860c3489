package answer

import (
	"context"
	"errors"
	"strings"

	"ragd/wire"

	"ragd"

	"ragd/internal/platform/cache"
	"ragd/internal/retrieval/search"
)

// QueryRequest is a rag_query call as the service takes it: the wire
// request and what only the server sets.
type QueryRequest struct {
	wire.QueryRequest
	// Model writes the answer when no chat model is configured (the MCP
	// client's model, through sampling); never read from a request body.
	Model CallModel `json:"-"`
}

// Source is wire.Source, the contract REST, MCP and the client share.
type Source = wire.Source

// Step is wire.Step, the contract REST, MCP and the client share.
type Step = wire.Step

// Routes an answer can take.
const (
	RouteLLM        = "llm"        // the chat model answered from the passages
	RouteExtractive = "extractive" // best-matching sentences, no model
	RouteNotFound   = "not_found"  // the documents do not hold the answer
	RouteSampling   = "sampling"   // the MCP client's own model answered from the passages
)

// QueryResponse is wire.QueryResponse, the contract REST, MCP and the client share.
type QueryResponse = wire.QueryResponse

// Query answers a question from the documents: with the chat model when one
// is configured, else with req.Model when set (the MCP client's, through
// sampling), falling back to an extractive answer if the model fails, else
// extractively. onDelta, when not nil, receives the answer as it is written.
func (s *Service) Query(ctx context.Context, req QueryRequest, onDelta func(string) error) (QueryResponse, error) {
	ctx = cache.WithGenerationMemo(ctx)
	agentic := req.Mode == ModeAgentic || (req.Mode == ModeAuto && s.LLM != nil)
	if req.Mode == ModeAgentic || req.Mode == ModeAuto {
		req.Mode = "" // retrieval itself is hybrid
	}
	p, err := s.Search.Plan(ctx, req.RetrieveRequest)
	if err != nil {
		return QueryResponse{}, err
	}
	includeSources := req.IncludeSources == nil || *req.IncludeSources
	if agentic {
		// Not cached: web results age on their own clock, not the namespace's.
		resp, err := s.agentic(ctx, p)
		if err != nil {
			return resp, err
		}
		if !includeSources {
			resp.Sources = []Source{}
		}
		if onDelta != nil {
			_ = onDelta(resp.Answer)
		}
		return resp, nil
	}
	type cacheArgs struct {
		search.Plan
		Sources bool   `json:"src"`
		Model   string `json:"model,omitempty"`
	}
	args := cacheArgs{Plan: p, Sources: includeSources}
	w := s.writerFor(req)
	if w != nil {
		args.Model = w.model.Model()
	}
	key := ""
	if onDelta == nil && (w == nil || w.configured) {
		var cached QueryResponse
		var hit bool
		if key, hit = s.Cache.Lookup(ctx, p.Namespaces, "rag_query", args, &cached); hit {
			return cached, nil
		}
	}
	vector, err := s.Search.EmbedQuery(ctx, p.Query)
	if err != nil {
		return QueryResponse{}, err
	}
	hits, err := s.Search.Retrieve(ctx, p, vector, true)
	if err != nil {
		return QueryResponse{}, err
	}
	resp, err := s.answer(ctx, p.Query, vector, hits, w, onDelta)
	if err != nil {
		return resp, err
	}
	if !includeSources {
		resp.Sources = []Source{}
	}
	if resp.Route != RouteNotFound && resp.Fallback == "" {
		s.Cache.Put(ctx, "rag_query", key, resp)
	}
	return resp, nil
}

// answer writes the answer from the retrieved hits, with w when there is
// a model, else extractively.
func (s *Service) answer(ctx context.Context, query string, vector []float32, hits []ragd.Hit, w *writer, onDelta func(string) error) (QueryResponse, error) {
	var list citations
	resp := QueryResponse{Context: []search.Result{}, Steps: []Step{}}
	best := 0.0
	for _, h := range hits {
		if _, added := list.addHit(h); added {
			resp.Context = append(resp.Context, search.ToResult(h))
		}
		best = max(best, ragd.Cosine(vector, h.Vector))
	}
	passages := list.passages
	resp.Sources = list.sourceList()
	if len(hits) == 0 || best < s.MinScore {
		resp.Answer, resp.Route = NotFoundAnswer(query), RouteNotFound
		emit(onDelta, resp.Answer)
		return resp, nil
	}
	if w != nil {
		done, err := s.generated(ctx, &resp, query, passages, w, onDelta)
		if done || err != nil {
			return resp, err
		}
	}
	answer, cited := Extract(query, passages, s.MaxSentences)
	if s.Candidates >= 2 && len(passages) >= 2 {
		var step Step
		answer, cited, step = s.rankedExtract(query, passages)
		resp.Steps = append(resp.Steps, step)
	}
	if answer == "" {
		resp.Answer, resp.Route = NotFoundAnswer(query), RouteNotFound
	} else {
		resp.Answer, resp.Route = answer, RouteExtractive
		idx := make([]int, len(cited))
		for i, c := range cited {
			idx[i] = c + 1
		}
		s.markCited(&resp, idx)
	}
	emit(onDelta, resp.Answer)
	return resp, nil
}

func emit(onDelta func(string) error, text string) {
	if onDelta != nil && text != "" {
		_ = onDelta(text)
	}
}

// generated has w write the answer into resp, reporting whether it did.
// A model failing before it wrote anything leaves resp to an extractive
// answer, with the reason in resp.Fallback; failing mid-stream, the error is
// returned (the client has part of an answer that a different one must not
// silently follow), as is ErrDeferred.
func (s *Service) generated(ctx context.Context, resp *QueryResponse, query string, passages []Passage, w *writer, onDelta func(string) error) (bool, error) {
	streamed := false
	var sink func(string) error
	if onDelta != nil {
		sink = func(d string) error { streamed = true; return onDelta(d) }
	}
	var text string
	var err error
	if w.configured && s.Candidates >= 2 && onDelta == nil && len(passages) >= 2 {
		var step Step
		text, step, err = s.rankedGenerate(ctx, query, passages)
		if err == nil {
			resp.Steps = append(resp.Steps, step)
		}
	} else {
		text, err = s.generate(ctx, w.model, query, passages, sink)
	}
	if err == nil {
		resp.Answer, resp.Route = strings.TrimSpace(text), w.route
		if IsNotFound(resp.Answer) {
			resp.Route = RouteNotFound
		}
		s.markCited(resp, Citations(resp.Answer, len(passages)))
		return true, nil
	}
	if streamed || ctx.Err() != nil || errors.Is(err, ErrDeferred) {
		return false, err
	}
	who, why := "chat model", publicText(err) // logged below
	if !w.configured {
		// The client's own model failed: its words are the client's.
		who, why = "the client's model ("+w.route+")", err.Error()
	}
	resp.Fallback = who + " failed, answered extractively: " + why
	s.Log.WarnContext(ctx, who+" failed; extractive answer instead", "error", err)
	return false, nil
}

// generate asks the chat model for a grounded answer, streaming when asked.
// Streaming is not retried: part of the answer may already be with the client.
func (s *Service) generate(ctx context.Context, model ragd.ChatModel, query string, passages []Passage, onDelta func(string) error) (string, error) {
	req := ragd.ChatRequest{Messages: GroundedMessages(query, passages)}
	if onDelta != nil {
		resp, err := model.Stream(ctx, req, onDelta)
		return resp.Message.Content, err
	}
	resp, err := model.Complete(ctx, req)
	if err != nil {
		return "", err
	}
	return resp.Message.Content, nil
}

// markCited flags the sources that citations (1-based) refer to.
func (s *Service) markCited(resp *QueryResponse, citations []int) {
	for _, n := range citations {
		if n >= 1 && n <= len(resp.Sources) {
			resp.Sources[n-1].Cited = true
		}
	}
}

// citations numbers what one answer may cite: citation [n] is passages[n-1],
// listed as sources[n-1]. Every route builds its passages through it, so the
// numbers a model or Extract writes and the sources a caller reads agree.
// A chunk is listed once, under its first (best) rank: fused phrasings and
// namespaces, and an agent's repeated searches, can return it again, and
// one chunk shown as [1] and [3] reads as two sources that agree.
type citations struct {
	passages []Passage
	sources  []Source
	index    map[string]int // passage key → 0-based position
}

// addHit lists a retrieved chunk; see add.
func (c *citations) addHit(h ragd.Hit) (n int, added bool) {
	return c.add(Passage{ChunkID: h.ID, DocumentID: h.DocumentID, Source: h.Source, Path: h.Path, Text: h.Text, Page: h.Page, Score: h.Score},
		Source{Source: h.Source, Score: h.Score, ChunkID: h.ID, DocumentID: h.DocumentID, Path: h.Path, Page: h.Page})
}

// add lists p, cited as s, unless it is listed already, and returns its
// citation number (1-based) either way. A passage is known by its chunk, or
// by its link when it has none (a web result).
func (c *citations) add(p Passage, s Source) (n int, added bool) {
	key := "chunk:" + p.ChunkID
	if p.ChunkID == "" {
		key = "link:" + p.Source
	}
	if i, ok := c.index[key]; ok {
		return i + 1, false
	}
	if key != "link:" { // with neither, nothing says two passages are one
		if c.index == nil {
			c.index = map[string]int{}
		}
		c.index[key] = len(c.passages)
	}
	c.passages, c.sources = append(c.passages, p), append(c.sources, s)
	return len(c.passages), true
}

// sourceList is the sources, never nil: a response lists none as [].
func (c *citations) sourceList() []Source {
	if c.sources == nil {
		return []Source{}
	}
	return c.sources
}
