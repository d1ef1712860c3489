package api

import (
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/labstack/echo/v4"

	"ragd"
	"ragd/answer"
)

func (h *handlers) query(c echo.Context) error {
	var req answer.QueryRequest
	if err := bind(c, &req); err != nil {
		return err
	}
	if !req.Stream {
		resp, err := h.svc.Answer.Query(c.Request().Context(), req, nil)
		if err != nil {
			return err
		}
		return c.JSON(http.StatusOK, resp)
	}
	sse := &eventStream{c: c}
	resp, err := h.svc.Answer.Query(c.Request().Context(), req, func(text string) error {
		return sse.send("delta", map[string]string{"text": text})
	})
	if err != nil {
		if !sse.started {
			return err // nothing sent yet: an ordinary error response
		}
		h.log.Warn("stream ended by an error", "error", err)
		detail := "the answer stream failed"
		if ragd.KindOf(err) != ragd.KindInternal {
			detail = err.Error()
		}
		return sse.send("error", map[string]string{"detail": detail})
	}
	return sse.send("done", resp)
}

// eventStream writes server-sent events, starting the response on the first
// one so that errors found before any output still get a normal status.
type eventStream struct {
	c       echo.Context
	started bool
}

func (s *eventStream) send(event string, data any) error {
	w := s.c.Response()
	if !s.started {
		s.started = true
		w.Header().Set(echo.HeaderContentType, "text/event-stream")
		w.Header().Set(echo.HeaderCacheControl, "no-cache")
		w.Header().Set("X-Accel-Buffering", "no") // no proxy buffering
		w.WriteHeader(http.StatusOK)
	}
	body, err := json.Marshal(data)
	if err != nil {
		return err
	}
	if _, err := fmt.Fprintf(w, "event: %s\ndata: %s\n\n", event, body); err != nil {
		return err
	}
	w.Flush()
	return s.c.Request().Context().Err()
}
