package api

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"ragd"
	"ragd/internal/retrieval/answer"
	"ragd/internal/server/sse"
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
	stream := sse.New(c.Response())
	send := func(event string, data any) error {
		if err := stream.Event(event, data); err != nil {
			return err
		}
		return c.Request().Context().Err()
	}
	resp, err := h.svc.Answer.Query(c.Request().Context(), req, func(text string) error {
		return send("delta", map[string]string{"text": text})
	})
	if err != nil {
		if !stream.Started() {
			return err // nothing sent yet: an ordinary error response
		}
		h.log.WarnContext(c.Request().Context(), "stream ended by an error", "error", err)
		// As handleError would: a dependency's name, never its failure's text.
		detail := ragd.PublicMessage(err)
		if detail == "" {
			detail = "the answer stream failed"
		}
		return send("error", map[string]string{"detail": detail})
	}
	return send("done", resp)
}
