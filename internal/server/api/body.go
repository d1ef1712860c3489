package api

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"time"

	"github.com/labstack/echo/v4"
)

// StatusClientClosedRequest is the status recorded for a request whose
// client went away before its answer (nginx's 499): its handler's failure,
// usually a cancelled context, is the client's doing, so it is neither
// logged as an error nor counted as a 5xx in the request metrics. The
// answer is still written, and reaches a client that only closed its
// sending side.
const StatusClientClosedRequest = 499

// NewHTTPServer is the http.Server ragd serves handler with, at addr; the
// command and the test stack both use it, so tests run under the
// production timeouts.
//
// It sets no ReadTimeout: that one deadline would span headers and body
// alike and could not be lifted for the routes whose bodies may
// legitimately take long (uploads, archive imports). Each request's body
// gets its deadline from bodyDeadline instead: a total one, or for those
// routes one renewed by every read. Nor a WriteTimeout, since streamed
// answers (server-sent events, exports, waits for a job) may take long.
func NewHTTPServer(addr string, handler http.Handler) *http.Server {
	return &http.Server{Addr: addr, Handler: handler, ConnContext: connContext,
		ReadHeaderTimeout: 10 * time.Second,
		// A kept-alive connection waiting for its next request.
		IdleTimeout: 2 * time.Minute}
}

// bodyError is a request body that could not be read to its end: cut short
// by its client (400) or not arriving in time (408).
type bodyError struct {
	status int
	msg    string
}

func (e *bodyError) Error() string { return e.msg }

// HTTPStatus is the status the body's failure is answered with, for the
// handlers that answer it themselves (/mcp, in its JSON-RPC shape).
func (e *bodyError) HTTPStatus() int { return e.status }

// bodyDeadline bounds the reading of request bodies: the whole body within
// total of the request's dispatch, or, for the routes in slow ("METHOD
// /path"), each read within idle of its start; a zero duration sets no
// bound. Deadlines are set on the connection (http.ResponseController)
// only for requests with a body, and never once the body has ended: the
// server then clears the deadline to watch the connection for the client
// going away, and a deadline would end that watch with a cancelled
// request. A body that ends before its Content-Length or misses its
// deadline is answered with its bodyError, whatever the handler made of
// the read error, unless the handler has answered already.
func bodyDeadline(total, idle time.Duration, slow map[string]bool) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			req := c.Request()
			if req.Body == nil || req.Body == http.NoBody {
				return next(c)
			}
			// The writer Echo was given: the connection's, not a
			// middleware's wrapper, which may not unwrap to it.
			b := &deadlineBody{ReadCloser: req.Body, rc: http.NewResponseController(c.Response().Writer),
				length: req.ContentLength, total: total}
			switch {
			case slow[req.Method+" "+c.Path()]:
				b.idle = idle
			case total > 0 && b.rc.SetReadDeadline(time.Now().Add(total)) != nil:
				b.rc = nil // not a connection (a test recorder): no deadline
			}
			req.Body = b
			err := next(c)
			if b.err != nil && (err != nil || !c.Response().Committed) {
				return b.err
			}
			return err
		}
	}
}

// slowBodies are the routes marked slowBody, as bodyDeadline names them.
func slowBodies() map[string]bool {
	slow := map[string]bool{}
	for _, r := range routes() {
		if r.slowBody {
			slow[r.op.Method+" "+r.op.Path] = true
		}
	}
	return slow
}

// deadlineBody is a request body under bodyDeadline, which records why it
// failed.
type deadlineBody struct {
	io.ReadCloser
	rc     *http.ResponseController
	length int64
	total  time.Duration
	// idle, when set, is each read's deadline, renewed before it.
	idle  time.Duration
	ended bool
	err   *bodyError
}

func (b *deadlineBody) Read(p []byte) (int, error) {
	if b.idle > 0 && b.rc != nil && !b.ended {
		if b.rc.SetReadDeadline(time.Now().Add(b.idle)) != nil {
			b.rc = nil
		}
	}
	n, err := b.ReadCloser.Read(p)
	if err == nil {
		return n, nil
	}
	b.ended = true
	switch {
	case errors.Is(err, io.ErrUnexpectedEOF):
		b.err = &bodyError{status: http.StatusBadRequest, msg: "request body ended before its last chunk: the client stopped sending"}
		if b.length >= 0 {
			b.err.msg = fmt.Sprintf("request body ended before its Content-Length (%d bytes): the client stopped sending", b.length)
		}
	case errors.Is(err, os.ErrDeadlineExceeded) && b.idle > 0:
		b.err = &bodyError{status: http.StatusRequestTimeout, msg: fmt.Sprintf("request body stalled: nothing more arrived for %s (http.body_idle_timeout)", b.idle)}
	case errors.Is(err, os.ErrDeadlineExceeded):
		b.err = &bodyError{status: http.StatusRequestTimeout, msg: fmt.Sprintf("request body not received within %s (http.body_timeout)", b.total)}
	default:
		return n, err
	}
	return n, b.err
}

// clientGone reports whether req's client went away: the server cancels a
// request's context when its connection fails or closes.
func clientGone(req *http.Request) bool {
	return errors.Is(context.Cause(req.Context()), context.Canceled)
}
