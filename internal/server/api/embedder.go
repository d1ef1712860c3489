package api

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"ragd"
	"ragd/internal/library/embeddersvc"
	"ragd/internal/server/openapi"
)

// embedderRoutes report and switch the live embedder.
func embedderRoutes() []route {
	return []route{
		{handler: (*handlers).embedder, op: openapi.Operation{Method: "GET", Path: "/embedder", Summary: "The live embedder and the switch under way", Tags: []string{"embedder"},
			Description: "403 for a principal that is no operator: a switch's progress counts every namespace's chunks.",
			Responses:   with(errs(403, 503), 200, openapi.Response{Body: embeddersvc.EmbedderStatus{}})}},
		{handler: (*handlers).switchEmbedder, op: openapi.Operation{Method: "POST", Path: "/embedder/switch", Summary: "Switch every namespace to another embedder, without downtime", Tags: []string{"embedder"},
			Description: "Re-embeds every stored chunk and picture from its stored text into a new collection while searches and ingests go on with the live one, then cuts every replica over and drops the old collection. " +
				"The answer is the job (GET /jobs/{id}, progress in chunks; POST /jobs/{id}/cancel drops the half-built collection). " +
				"404 for a name not under embedders, 409 while a switch runs or when the embedder is live already, 422 when it does not answer or for a field the body should not have, 403 for a namespace-limited key or a JWT.",
			Request: embeddersvc.SwitchRequest{}, Responses: with(errs(403, 404, 409, 422, 503), 202, openapi.Response{Body: embeddersvc.SwitchAccepted{}})}},
	}
}

func (h *handlers) embedder(c echo.Context) error {
	if h.svc.Embedders == nil {
		return ragd.NotFound("embedder switching is not served here")
	}
	st, err := h.svc.Embedders.Status(c.Request().Context())
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, st)
}

func (h *handlers) switchEmbedder(c echo.Context) error {
	if h.svc.Embedders == nil {
		return ragd.NotFound("embedder switching is not served here")
	}
	var req embeddersvc.SwitchRequest
	if err := bindStrict(c, &req); err != nil {
		return err
	}
	res, err := h.svc.Embedders.StartSwitch(c.Request().Context(), req)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusAccepted, res)
}
