package api

import (
	"net/http"
	"strconv"

	"github.com/labstack/echo/v4"

	"ragd"
	"ragd/internal/library"
)

func (h *handlers) listDocuments(c echo.Context) error {
	limit, offset, err := queryPage(c)
	if err != nil {
		return err
	}
	list, err := h.svc.Library.ListDocuments(c.Request().Context(), library.ListRequest{KBName: c.QueryParam("kb_name"), Limit: limit, Offset: offset})
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, list)
}

func (h *handlers) getDocument(c echo.Context) error {
	doc, err := h.svc.Library.Document(c.Request().Context(), c.QueryParam("kb_name"), c.Param("id"))
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, doc)
}

func (h *handlers) setAccess(c echo.Context) error {
	var req library.AccessRequest
	if err := bindStrict(c, &req); err != nil {
		return err
	}
	doc, err := h.svc.Library.SetAccess(c.Request().Context(), c.QueryParam("kb_name"), c.Param("id"), req)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, doc)
}

func (h *handlers) deleteDocument(c echo.Context) error {
	res, err := h.svc.Library.DeleteDocument(c.Request().Context(), c.QueryParam("kb_name"), c.Param("id"))
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, res)
}

func (h *handlers) stats(c echo.Context) error {
	res, err := h.svc.Library.Stats(c.Request().Context())
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, res)
}

func (h *handlers) clear(c echo.Context) error {
	all, err := queryBool(c, "all")
	if err != nil {
		return err
	}
	confirm, err := queryBool(c, "confirm")
	if err != nil {
		return err
	}
	if all && !confirm {
		return &ragd.Error{Kind: ragd.KindInvalid, Message: "confirm required", Fields: []ragd.FieldError{{
			Loc: []string{"query", "confirm"}, Type: "missing", Msg: "clearing every namespace needs confirm=true"}}}
	}
	res, err := h.svc.Library.Clear(c.Request().Context(), c.QueryParam("kb_name"), all)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, res)
}

func queryBool(c echo.Context, name string) (bool, error) {
	b, _, err := queryValue(c, name, "a boolean", "true or false", strconv.ParseBool)
	return b, err
}

// queryInt reads an integer query parameter; nil when it is absent, so the
// service applies its default and its range check.
// queryPage parses a page's limit and offset (each nil when absent; the
// service checks their ranges).
func queryPage(c echo.Context) (limit, offset *int, err error) {
	if limit, err = queryInt(c, "limit"); err != nil {
		return nil, nil, err
	}
	offset, err = queryInt(c, "offset")
	return limit, offset, err
}

func queryInt(c echo.Context, name string) (*int, error) {
	n, ok, err := queryValue(c, name, "an integer", "an integer", strconv.Atoi)
	if !ok || err != nil {
		return nil, err
	}
	return &n, nil
}

// queryValue parses query parameter name; ok is false when it is absent.
// A value parse refuses is a 422 naming what was expected.
func queryValue[T any](c echo.Context, name, kind, expected string, parse func(string) (T, error)) (v T, ok bool, err error) {
	raw := c.QueryParam(name)
	if raw == "" {
		return v, false, nil
	}
	if v, err = parse(raw); err != nil {
		return v, false, &ragd.Error{Kind: ragd.KindInvalid, Message: "not " + kind, Fields: []ragd.FieldError{{
			Loc: []string{"query", name}, Type: "type_error", Msg: name + " must be " + expected + ", not " + strconv.Quote(raw)}}}
	}
	return v, true, nil
}
