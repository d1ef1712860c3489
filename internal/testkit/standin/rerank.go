// Package standin holds stand-in servers for tests: small httptest servers
// that each speak one documented wire format of a real server ragd talks
// to, and record what they received. They are not the real servers: they
// check a request's shape and answer in the documented shape, scoring with
// a rule the test gives.
package standin

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sort"
	"sync"
	"testing"
	"time"
)

// A RerankWire is one reranking server's documented /rerank.
type RerankWire string

// The wire formats the stand-in reranker speaks, each as documented by its
// server.
const (
	// WireTEI is Hugging Face text-embeddings-inference: POST /rerank
	// {query, texts, raw_scores, return_text, truncate,
	// truncation_direction} → [{index, score, text?}], best first.
	WireTEI RerankWire = "tei"
	// WireCohere is Cohere's v2 API: POST /v2/rerank {model (required),
	// query, documents, top_n, max_tokens_per_doc} → {id, results: [{index,
	// relevance_score}], meta}, best first, top_n of them.
	WireCohere RerankWire = "cohere"
	// WireJina is Jina's API: POST /v1/rerank {model, query, documents,
	// top_n, return_documents} → {model, usage, results: [{index,
	// document: {text}, relevance_score}]}.
	WireJina RerankWire = "jina"
	// WireVLLM is vLLM's Jina/Cohere-compatible POST /v1/rerank (and
	// /rerank): {model, query, documents, top_n (0: all)} → {id, model,
	// usage, results: [{index, document: {text}, relevance_score}]}.
	WireVLLM RerankWire = "vllm"
	// WireLlamaCpp is llama.cpp server's POST /v1/rerank (and /rerank):
	// {model, query, documents, top_n (absent: all)} → {model, object:
	// "list", usage, results: [{index, relevance_score}]}; with texts
	// instead of documents it answers TEI's shape.
	WireLlamaCpp RerankWire = "llamacpp"
)

// RerankRequest is what the stand-in received in one call.
type RerankRequest struct {
	Path   string
	Header http.Header
	// Body is the request's JSON object as decoded.
	Body map[string]any
}

// Reranker is a stand-in reranking server.
type Reranker struct {
	// URL is the base URL to configure ragd with: the server's root for
	// TEI, with /v2 for Cohere and /v1 for the others.
	URL  string
	wire RerankWire
	// score rates one text for a query; higher is better.
	score func(query, text string) float64

	mu       sync.Mutex
	requests []RerankRequest
	status   int
	body     string
	delay    time.Duration
}

// NewReranker starts a stand-in speaking wire, scoring with score; it stops
// when the test ends.
func NewReranker(t testing.TB, wire RerankWire, score func(query, text string) float64) *Reranker {
	r := &Reranker{wire: wire, score: score}
	srv := httptest.NewServer(http.HandlerFunc(r.serve))
	t.Cleanup(srv.Close)
	r.URL = srv.URL + map[RerankWire]string{WireTEI: "", WireCohere: "/v2"}[wire]
	if wire == WireJina || wire == WireVLLM || wire == WireLlamaCpp {
		r.URL = srv.URL + "/v1"
	}
	return r
}

// Misbehave makes every later call wait delay and then, when status is not
// 0, answer status with body instead of scoring.
func (r *Reranker) Misbehave(status int, body string, delay time.Duration) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.status, r.body, r.delay = status, body, delay
}

// Requests are the calls received so far.
func (r *Reranker) Requests() []RerankRequest {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]RerankRequest(nil), r.requests...)
}

func (r *Reranker) serve(w http.ResponseWriter, req *http.Request) {
	var body map[string]any
	dec := json.NewDecoder(req.Body)
	dec.UseNumber()
	err := dec.Decode(&body)
	r.mu.Lock()
	r.requests = append(r.requests, RerankRequest{Path: req.URL.Path, Header: req.Header.Clone(), Body: body})
	status, text, delay := r.status, r.body, r.delay
	r.mu.Unlock()
	if delay > 0 {
		select {
		case <-time.After(delay):
		case <-req.Context().Done():
			return
		}
	}
	if status != 0 {
		w.WriteHeader(status)
		_, _ = w.Write([]byte(text))
		return
	}
	if req.Method != http.MethodPost || !r.pathOK(req.URL.Path) {
		http.NotFound(w, req)
		return
	}
	if err != nil {
		r.refuse(w, http.StatusBadRequest, "body is not JSON: "+err.Error())
		return
	}
	if msg := r.check(req, body); msg != "" {
		r.refuse(w, http.StatusUnprocessableEntity, msg)
		return
	}
	r.answer(w, body)
}

func (r *Reranker) pathOK(p string) bool {
	switch r.wire {
	case WireTEI:
		return p == "/rerank"
	case WireCohere:
		return p == "/v2/rerank"
	case WireJina:
		return p == "/v1/rerank"
	default: // vLLM and llama.cpp serve both
		return p == "/v1/rerank" || p == "/rerank"
	}
}

// refuse answers an error in the server's documented error shape.
func (r *Reranker) refuse(w http.ResponseWriter, status int, msg string) {
	var v any
	switch r.wire {
	case WireTEI:
		v = map[string]any{"error": msg, "error_type": "Validation"}
	case WireCohere:
		v = map[string]any{"message": msg}
	case WireJina:
		v = map[string]any{"detail": msg}
	default:
		v = map[string]any{"error": map[string]any{"message": msg, "type": "BadRequestError", "code": status}}
	}
	writeJSON(w, status, v)
}

// allowed are the documented request members of each wire.
var allowed = map[RerankWire][]string{
	WireTEI:      {"query", "texts", "raw_scores", "return_text", "truncate", "truncation_direction"},
	WireCohere:   {"model", "query", "documents", "top_n", "max_tokens_per_doc"},
	WireJina:     {"model", "query", "documents", "top_n", "return_documents"},
	WireVLLM:     {"model", "query", "documents", "top_n", "truncate_prompt_tokens"},
	WireLlamaCpp: {"model", "query", "documents", "texts", "top_n"},
}

// check returns why the request is not the wire's, or "".
func (r *Reranker) check(req *http.Request, body map[string]any) string {
	for k := range body {
		if !contains(allowed[r.wire], k) {
			return fmt.Sprintf("unknown field %q", k)
		}
	}
	if _, ok := body["query"].(string); !ok {
		return "query is required"
	}
	list := "documents"
	if r.wire == WireTEI || (r.wire == WireLlamaCpp && body["texts"] != nil) {
		list = "texts"
	}
	if _, ok := stringList(body[list]); !ok {
		return list + " must be a list of strings"
	}
	if r.wire == WireCohere {
		if m, _ := body["model"].(string); m == "" {
			return "model is required"
		}
		if req.Header.Get("Authorization") == "" {
			return "no api key"
		}
	}
	return ""
}

type scored struct {
	index int
	score float64
	text  string
}

// answer scores the texts and writes the wire's answer, best first.
func (r *Reranker) answer(w http.ResponseWriter, body map[string]any) {
	query := body["query"].(string)
	tei := r.wire == WireTEI || (r.wire == WireLlamaCpp && body["texts"] != nil)
	list := "documents"
	if tei {
		list = "texts"
	}
	texts, _ := stringList(body[list])
	ranks := make([]scored, len(texts))
	for i, t := range texts {
		ranks[i] = scored{i, r.score(query, t), t}
	}
	sort.SliceStable(ranks, func(i, j int) bool { return ranks[i].score > ranks[j].score })
	if n, ok := body["top_n"].(json.Number); ok && !tei {
		if k, _ := n.Int64(); (k > 0 || r.wire == WireLlamaCpp) && int(k) < len(ranks) {
			ranks = ranks[:max(k, 0)]
		}
	}
	results := make([]map[string]any, len(ranks))
	for i, s := range ranks {
		switch {
		case tei:
			results[i] = map[string]any{"index": s.index, "score": s.score}
		case r.wire == WireJina || r.wire == WireVLLM:
			results[i] = map[string]any{"index": s.index, "document": map[string]any{"text": s.text}, "relevance_score": s.score}
		default:
			results[i] = map[string]any{"index": s.index, "relevance_score": s.score}
		}
	}
	switch {
	case tei:
		writeJSON(w, http.StatusOK, results)
	case r.wire == WireCohere:
		writeJSON(w, http.StatusOK, map[string]any{"id": "standin", "results": results,
			"meta": map[string]any{"api_version": map[string]any{"version": "2"}, "billed_units": map[string]any{"search_units": 1}}})
	case r.wire == WireLlamaCpp:
		writeJSON(w, http.StatusOK, map[string]any{"model": body["model"], "object": "list",
			"usage": map[string]any{"prompt_tokens": 10, "total_tokens": 10}, "results": results})
	default:
		writeJSON(w, http.StatusOK, map[string]any{"id": "standin", "model": body["model"],
			"usage": map[string]any{"total_tokens": 10}, "results": results})
	}
}

func stringList(v any) ([]string, bool) {
	list, ok := v.([]any)
	if !ok {
		return nil, false
	}
	out := make([]string, len(list))
	for i, x := range list {
		if out[i], ok = x.(string); !ok {
			return nil, false
		}
	}
	return out, true
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	var b bytes.Buffer
	_ = json.NewEncoder(&b).Encode(v)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(b.Bytes())
}
