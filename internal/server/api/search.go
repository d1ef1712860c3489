package api

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"ragd/internal/retrieval/search"
)

func (h *handlers) search(c echo.Context) error {
	var req search.RetrieveRequest
	if err := bind(c, &req); err != nil {
		return err
	}
	resp, err := h.svc.Search.Search(c.Request().Context(), req)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, resp)
}
