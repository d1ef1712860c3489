package websearchapi

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

	"ragd"
	"ragd/internal/adapter/websearch"
	"ragd/internal/server/sse"
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
// "event: end" with data {"count": n}. What can be known before searching
// is answered before the stream opens, as the REST API answers it: invalid
// parameters are 422 {"detail":[{"loc":["query",…],"msg","type"}]}, an
// unconfigured provider 503 {"detail":"…"}, a method other than GET 405.
// A non-200 answer also keeps a browser's EventSource from reconnecting
// and asking again. Only a search that fails after the stream opened is a
// single "event: error" with data {"message": "…"}. Clients should close on
// end or error; EventSource would otherwise reconnect and search again. A
// client that disconnects cancels the search.
func (s *Server) ServeStream(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet {
		w.Header().Set("Allow", http.MethodGet)
		http.Error(w, "GET /stream?topic=…", http.StatusMethodNotAllowed)
		return
	}
	topic, maxResults, invalid := streamParams(r.URL.Query())
	if invalid != nil {
		writeDetail(w, http.StatusUnprocessableEntity, invalid)
		return
	}
	if s.p == nil {
		writeDetail(w, http.StatusServiceUnavailable, notConfigured().Message)
		return
	}
	ev := sse.New(w)
	// Open the stream now: the client sees it open while the provider works.
	if ev.Comment("ragd web search") != nil {
		return
	}
	start := time.Now()
	res, err := s.searchKeepingAlive(r.Context(), ev, topic, maxResults)
	if err != nil {
		if r.Context().Err() != nil {
			s.log.DebugContext(r.Context(), "web search stream: client gone", "provider", s.providerName())
			return
		}
		msg := errInternal.Message
		if !errors.Is(err, errPanicked) {
			s.logFailure(r.Context(), "stream", err)
			msg = s.failure(err).Message
		}
		_ = ev.Event("error", streamError{Message: msg})
		return
	}
	res = res[:min(len(res), maxResults)]
	for i, x := range res {
		if ev.Event("", streamItem{Index: i, Title: x.Title, Link: x.Link, Snippet: x.Snippet}) != nil {
			return
		}
	}
	_ = ev.Event("end", streamEnd{Count: len(res)})
	s.log.DebugContext(r.Context(), "web search streamed", "provider", s.providerName(), "count", len(res), "took", time.Since(start))
}

// streamParams reads topic (or query) and max_results from the URL. A
// problem comes back as the REST API's 422 detail, located in the query
// string.
func streamParams(q url.Values) (string, int, []ragd.FieldError) {
	topic := q.Get("topic")
	if strings.TrimSpace(topic) == "" {
		topic = q.Get("query")
	}
	if strings.TrimSpace(topic) == "" {
		return "", 0, queryError("topic", "missing", "missing topic: pass ?topic=…")
	}
	maxResults := websearch.DefaultMaxResults
	if v := strings.TrimSpace(q.Get("max_results")); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			return "", 0, queryError("max_results", "type_error", fmt.Sprintf("max_results must be an integer, got %q", v))
		}
		maxResults = n
	}
	if err := websearch.Validate(topic, maxResults); err != nil {
		return "", 0, inQuery(err)
	}
	return topic, maxResults, nil
}

// queryError is one 422 detail entry for the query parameter name.
func queryError(name, typ, msg string) []ragd.FieldError {
	return []ragd.FieldError{{Loc: []string{"query", name}, Msg: msg, Type: typ}}
}

// inQuery relocates websearch.Validate's complaint to the query parameter
// it concerns; its "query" argument is this endpoint's topic.
func inQuery(err error) []ragd.FieldError {
	var re *ragd.Error
	if !errors.As(err, &re) || len(re.Fields) == 0 {
		return queryError("topic", "value_error", err.Error())
	}
	f := re.Fields[0]
	name := f.Loc[len(f.Loc)-1]
	if name == "query" {
		name = "topic"
	}
	return queryError(name, f.Type, f.Msg)
}

// searchKeepingAlive runs the search, sending a comment every s.keepAlive
// while it waits. It returns when the search does or ctx ends, whichever
// is first, so a provider that ignores ctx cannot hold the handler.
func (s *Server) searchKeepingAlive(ctx context.Context, ev *sse.Writer, topic string, maxResults int) ([]websearch.Result, error) {
	type outcome struct {
		res []websearch.Result
		err error
	}
	done := make(chan outcome, 1) // buffered: a late search never blocks
	go func() {
		defer func() {
			if v := recover(); v != nil {
				s.log.ErrorContext(ctx, "searchrpc: provider panicked", "panic", v, "stack", string(debug.Stack()))
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
			if err := ev.Comment("keep-alive"); err != nil {
				return nil, err
			}
		}
	}
}
