package api

import (
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"

	"github.com/labstack/echo/v4"

	"ragd"
)

var statusOfKind = map[ragd.ErrorKind]int{
	ragd.KindInvalid:     http.StatusUnprocessableEntity,
	ragd.KindNotFound:    http.StatusNotFound,
	ragd.KindForbidden:   http.StatusForbidden,
	ragd.KindUnavailable: http.StatusServiceUnavailable,
	ragd.KindTooLarge:    http.StatusRequestEntityTooLarge,
	ragd.KindMediaType:   http.StatusUnsupportedMediaType,
	ragd.KindConflict:    http.StatusConflict,
}

// detail is the error body: a string, or for validation errors the list of
// fields at fault, as FastAPI shapes them.
type detail struct {
	Detail any `json:"detail"`
}

// handleError turns every error into {"detail": …} with the right status.
// Internal errors are logged and answered without their text: a response
// never carries a stack trace or an internal message.
func (h *handlers) handleError(err error, c echo.Context) {
	if c.Response().Committed {
		return
	}
	status, body := http.StatusInternalServerError, detail{Detail: "internal server error"}
	var re *ragd.Error
	var he *echo.HTTPError
	var tooLarge *http.MaxBytesError
	var unread *bodyError
	switch {
	case errors.As(err, &unread):
		status, body.Detail = unread.status, unread.msg
	case clientGone(c.Request()):
		// Whatever failed, the client is not waiting for it.
		status, body.Detail = StatusClientClosedRequest, "the client closed the request"
		h.log.DebugContext(c.Request().Context(), "client went away", "method", c.Request().Method, "path", c.Request().URL.Path, "error", err)
	case errors.As(err, &re):
		if s, ok := statusOfKind[re.Kind]; ok {
			status = s
			body.Detail = re.Error()
		}
		if re.Kind == ragd.KindInvalid && len(re.Fields) > 0 {
			body.Detail = re.Fields
		}
		if re.Kind == ragd.KindUnavailable {
			c.Response().Header().Set("Retry-After", strconv.Itoa(max(re.RetryAfterSeconds, 1)))
			body.Detail = re.Message
		}
	case errors.As(err, &tooLarge):
		status, body.Detail = http.StatusRequestEntityTooLarge, fmt.Sprintf("request body exceeds %d bytes", tooLarge.Limit)
	case errors.As(err, &he):
		status = he.Code
		body.Detail = fmt.Sprint(he.Message)
		if he.Code == http.StatusNotFound {
			body.Detail = "not found: " + c.Request().Method + " " + c.Request().URL.Path
		}
	}
	if status == http.StatusInternalServerError || status == http.StatusServiceUnavailable {
		h.log.ErrorContext(c.Request().Context(), "request failed", "method", c.Request().Method, "path", c.Request().URL.Path, "status", status, "error", err)
	}
	if c.Request().Method == http.MethodHead {
		err = c.NoContent(status)
	} else {
		err = c.JSON(status, body)
	}
	if err != nil {
		h.log.ErrorContext(c.Request().Context(), "write error response", "error", err)
	}
}

// recoverMiddleware turns a panic into a logged 500, never a crash or a trace
// in the response.
func recoverMiddleware(log *slog.Logger) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) (err error) {
			defer func() {
				if r := recover(); r != nil {
					if r == http.ErrAbortHandler {
						panic(r)
					}
					log.ErrorContext(c.Request().Context(), "panic in handler", "path", c.Request().URL.Path, "panic", r)
					err = fmt.Errorf("panic: %v", r)
				}
			}()
			return next(c)
		}
	}
}

// bodyLimit caps request bodies, those of the routes in byRoute ("METHOD
// /path") at their own limit, or not at all for a negative one (the
// handler bounds the body itself); reading past the cap fails with
// *http.MaxBytesError, which handleError answers with 413.
func bodyLimit(limit int64, byRoute map[string]int64) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			req := c.Request()
			limit := limit
			switch l := byRoute[req.Method+" "+c.Path()]; {
			case l < 0:
				return next(c)
			case l > 0:
				limit = l
			}
			if req.ContentLength > limit {
				return &http.MaxBytesError{Limit: limit}
			}
			req.Body = http.MaxBytesReader(c.Response(), req.Body, limit)
			return next(c)
		}
	}
}

// ownBodyLimit marks the routes that bound their bodies themselves (a
// negative limit for bodyLimit).
func ownBodyLimit(limits map[string]int64) map[string]int64 {
	for _, r := range routes() {
		if r.ownBodyLimit {
			limits[r.op.Method+" "+r.op.Path] = -1
		}
	}
	return limits
}
