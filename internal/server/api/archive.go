package api

import (
	"mime"
	"net/http"

	"github.com/labstack/echo/v4"

	"ragd"
)

// archiveTypes are the Content-Types an uploaded archive may carry. Each
// needs a CORS preflight from a browser, unlike text/plain or a form.
var archiveTypes = map[string]bool{"application/gzip": true, "application/x-gzip": true, "application/octet-stream": true}

func (h *handlers) exportKB(c echo.Context) error {
	if h.svc.Archive == nil {
		return echo.NewHTTPError(http.StatusNotFound, "export is not enabled")
	}
	ctx := c.Request().Context()
	exp, err := h.svc.Archive.Export(ctx, c.Param("kb_name"))
	if err != nil {
		return err
	}
	res := c.Response()
	res.Header().Set(echo.HeaderContentType, "application/gzip")
	res.Header().Set(echo.HeaderContentDisposition, mime.FormatMediaType("attachment", map[string]string{"filename": exp.Filename()}))
	res.WriteHeader(http.StatusOK)
	if _, err := exp.WriteTo(ctx, res); err != nil {
		h.log.ErrorContext(ctx, "export failed after it began; the archive ends without its trailer", "kb_name", c.Param("kb_name"), "error", err)
		// The status is sent: abort the response, so the client sees a
		// failed transfer rather than a short archive that looks whole.
		panic(http.ErrAbortHandler)
	}
	return nil
}

func (h *handlers) importKB(c echo.Context) error {
	if h.svc.Archive == nil {
		return echo.NewHTTPError(http.StatusNotFound, "import is not enabled")
	}
	req := c.Request()
	if ct, _, _ := mime.ParseMediaType(req.Header.Get(echo.HeaderContentType)); !archiveTypes[ct] {
		return &ragd.Error{Kind: ragd.KindMediaType, Message: "an archive is sent as application/gzip (or application/octet-stream), not " +
			quoteType(req.Header.Get(echo.HeaderContentType))}
	}
	res, err := h.svc.Archive.Import(req.Context(), c.Param("kb_name"), req.Body, req.ContentLength)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusAccepted, res)
}

func quoteType(ct string) string {
	if ct == "" {
		return "a body without Content-Type"
	}
	return `"` + ct + `"`
}
