package api

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"ragd"
	"ragd/internal/library"
)

func (h *handlers) listJobs(c echo.Context) error {
	limit, offset, err := queryPage(c)
	if err != nil {
		return err
	}
	list, err := h.svc.Library.ListJobs(c.Request().Context(), library.JobListRequest{KBName: c.QueryParam("kb_name"),
		Status: ragd.JobStatus(c.QueryParam("status")), Limit: limit, Offset: offset})
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, list)
}

func (h *handlers) cancelJob(c echo.Context) error {
	res, err := h.svc.Library.CancelJob(c.Request().Context(), library.CancelRequest{JobID: c.Param("id")})
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, res)
}
