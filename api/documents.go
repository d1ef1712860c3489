package api

import (
	"net/http"
	"strconv"

	"github.com/labstack/echo/v4"

	"ragd"
	"ragd/rag"
)

func (h *handlers) listDocuments(c echo.Context) error {
	limit, err := queryInt(c, "limit")
	if err != nil {
		return err
	}
	offset, err := queryInt(c, "offset")
	if err != nil {
		return err
	}
	list, err := h.svc.ListDocuments(c.Request().Context(), rag.ListRequest{KBName: c.QueryParam("kb_name"), Limit: limit, Offset: offset})
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, list)
}

func (h *handlers) getDocument(c echo.Context) error {
	doc, err := h.svc.Document(c.Request().Context(), c.QueryParam("kb_name"), c.Param("id"))
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, doc)
}

func (h *handlers) deleteDocument(c echo.Context) error {
	res, err := h.svc.DeleteDocument(c.Request().Context(), c.QueryParam("kb_name"), c.Param("id"))
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, res)
}

func (h *handlers) stats(c echo.Context) error {
	res, err := h.svc.Stats(c.Request().Context())
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
	res, err := h.svc.Clear(c.Request().Context(), c.QueryParam("kb_name"), all)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, res)
}

func queryBool(c echo.Context, name string) (bool, error) {
	v := c.QueryParam(name)
	if v == "" {
		return false, nil
	}
	b, err := strconv.ParseBool(v)
	if err != nil {
		return false, &ragd.Error{Kind: ragd.KindInvalid, Message: "not a boolean", Fields: []ragd.FieldError{{
			Loc: []string{"query", name}, Type: "type_error", Msg: name + " must be true or false, not " + strconv.Quote(v)}}}
	}
	return b, nil
}

// queryInt reads an integer query parameter; nil when it is absent, so the
// service applies its default and its range check.
func queryInt(c echo.Context, name string) (*int, error) {
	v := c.QueryParam(name)
	if v == "" {
		return nil, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		return nil, &ragd.Error{Kind: ragd.KindInvalid, Message: "not an integer", Fields: []ragd.FieldError{{
			Loc: []string{"query", name}, Type: "type_error", Msg: name + " must be an integer, not " + strconv.Quote(v)}}}
	}
	return &n, nil
}
