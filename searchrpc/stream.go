package searchrpc

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"ragd/websearch"
)

// streamItem is one result event; Index counts from 0 in rank order.
type streamItem struct {
	Index   int    `json:"index"`
	Title   string `json:"title"`
	Link    string `json:"link"`
	Snippet string `json:"snippet"`
}

type streamEnd struct {
	Count int `json:"count"`
}

type streamError struct {
	Message string `json:"message"`
}

var errPanicked = errors.New("internal error")

// ServeStream answers GET /stream?topic=…&max_results=… (query= is accepted
// for topic; max_results defaults to 5, 1–20) as Server-Sent Events: one
// default event per result, data {"index","title","link","snippet"}, then
// "event: end" with data {"count": n}. Any failure, including invalid
// parameters and an unconfigured provider, is a single "event: error" with
// data {"message": "…"} in an HTTP 200 stream: a browser's EventSource
// cannot read the body of a non-200 answer, so a 400 would reach it as a
// bare, unexplained failure. Only a method other than GET gets 405.
// Clients should close on end or error; EventSource would otherwise
// reconnect and search again. A client that disconnects cancels the search.
func (s *Server) ServeStream(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet {
		w.Header().Set("Allow", http.MethodGet)
		http.Error(w, "GET /stream?topic=…", http.StatusMethodNotAllowed)
		return
	}
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Accel-Buffering", "no") // nginx would otherwise hold events back
	w.WriteHeader(http.StatusOK)
	ev := newSSEWriter(w)
	// Commit the headers now: the client sees the stream open while the
	// provider works.
	if ev.comment("ragd web search") != nil {
		return
	}
	topic, maxResults, rerr := streamParams(r.URL.Query())
	if rerr == nil && s.p == nil {
		rerr = notConfigured()
	}
	if rerr != nil {
		_ = ev.event("error", streamError{Message: rerr.Message})
		return
	}
	start := time.Now()
	res, err := s.searchKeepingAlive(r.Context(), ev, topic, maxResults)
	if err != nil {
		if r.Context().Err() != nil {
			s.log.Debug("web search stream: client gone", "provider", s.providerName())
			return
		}
		msg := errInternal.Message
		if !errors.Is(err, errPanicked) {
			s.logFailure("stream", err)
			msg = s.failure(err).Message
		}
		_ = ev.event("error", streamError{Message: msg})
		return
	}
	res = res[:min(len(res), maxResults)]
	for i, x := range res {
		if ev.event("", streamItem{Index: i, Title: x.Title, Link: x.Link, Snippet: x.Snippet}) != nil {
			return
		}
	}
	_ = ev.event("end", streamEnd{Count: len(res)})
	s.log.Debug("web search streamed", "provider", s.providerName(), "count", len(res), "took", time.Since(start))
}

// streamParams reads topic (or query) and max_results from the URL,
// reporting problems in the JSON-RPC words.
func streamParams(q url.Values) (string, int, *rpcError) {
	topic := q.Get("topic")
	if strings.TrimSpace(topic) == "" {
		topic = q.Get("query")
	}
	if strings.TrimSpace(topic) == "" {
		return "", 0, invalidParams("topic", "missing topic: pass ?topic=…")
	}
	maxResults := websearch.DefaultMaxResults
	if v := strings.TrimSpace(q.Get("max_results")); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			return "", 0, invalidParams("max_results", fmt.Sprintf("max_results must be an integer, got %q", v))
		}
		maxResults = n
	}
	if rerr := checkArgs(topic, maxResults); rerr != nil {
		return "", 0, rerr
	}
	return topic, maxResults, nil
}

// searchKeepingAlive runs the search, sending a comment every s.keepAlive
// while it waits. It returns when the search does or ctx ends, whichever
// is first, so a provider that ignores ctx cannot hold the handler.
func (s *Server) searchKeepingAlive(ctx context.Context, ev *sseWriter, topic string, maxResults int) ([]websearch.Result, error) {
	type outcome struct {
		res []websearch.Result
		err error
	}
	done := make(chan outcome, 1) // buffered: a late search never blocks
	go func() {
		defer func() {
			if v := recover(); v != nil {
				s.log.Error("searchrpc: provider panicked", "panic", v, "stack", string(debug.Stack()))
				done <- outcome{err: errPanicked}
			}
		}()
		res, err := s.p.Search(ctx, topic, maxResults)
		done <- outcome{res, err}
	}()
	tick := time.NewTicker(s.keepAlive)
	defer tick.Stop()
	for {
		select {
		case o := <-done:
			return o.res, o.err
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-tick.C:
			if err := ev.comment("keep-alive"); err != nil {
				return nil, err
			}
		}
	}
}
