package api

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"ragd"
	"ragd/internal/library"
	"ragd/internal/library/sourcesvc"
	"ragd/internal/server/openapi"
)

// sourceRoutes are the sources: places outside the server kept in sync.
func sourceRoutes() []route {
	tags := []string{"sources"}
	return []route{
		{handler: (*handlers).createSource, op: openapi.Operation{Method: "POST", Path: "/sources", Summary: "Add a source kept in sync (a Git repository)", Tags: tags,
			Description: "Records the source; it syncs when asked (POST /sources/{id}/sync) and, with every, on its schedule. kind git only: web and s3 are refused (422) until they are built. " +
				"Its access and tags apply to every document it brings. 403 for a namespace the caller may not use, or a file:// URL outside the ingest roots.",
			Request: sourcesvc.SourceRequest{}, Responses: with(errs(403, 409, 415, 422, 503), 201, openapi.Response{Body: ragd.Source{}})}},
		{handler: (*handlers).listSources, op: openapi.Operation{Method: "GET", Path: "/sources", Summary: "Sources, with their last and next sync", Tags: tags,
			Description: "The sources of the namespaces the caller may use, and the directories of the config's watch: entries (kind directory, watch true: synced here, changed only in the config).", Query: []openapi.Param{{Name: "kb_name", Description: "only this namespace's sources (default: every namespace the caller may use)"}},
			Responses: with(errs(503), 200, openapi.Response{Body: sourcesvc.SourceList{}})}},
		{handler: (*handlers).getSource, op: openapi.Operation{Method: "GET", Path: "/sources/:id", Summary: "One source", Tags: tags,
			Responses: with(errs(404, 503), 200, openapi.Response{Body: ragd.Source{}})}},
		{handler: (*handlers).patchSource, op: openapi.Operation{Method: "PATCH", Path: "/sources/:id", Summary: "Change a source", Tags: tags,
			Description: "Absent fields are kept. A change of ref, include or exclude makes the next sync compare every file with the documents.",
			Request:     sourcesvc.SourcePatch{}, Responses: with(errs(404, 409, 415, 422, 503), 200, openapi.Response{Body: ragd.Source{}})}},
		{handler: (*handlers).deleteSource, op: openapi.Operation{Method: "DELETE", Path: "/sources/:id", Summary: "Delete a source and its documents", Tags: tags,
			Query:       []openapi.Param{{Name: "keep_documents", Type: "boolean", Description: "keep the documents it brought (default false)"}},
			Description: "409 for a directory of the config's watch: (watch true), which is changed or removed in the config.",
			Responses:   with(errs(404, 409, 422, 503), 200, openapi.Response{Body: sourcesvc.SourceDeleted{}})}},
		{handler: (*handlers).syncSource, op: openapi.Operation{Method: "POST", Path: "/sources/:id/sync", Summary: "Sync a source now (asynchronous)", Tags: tags,
			Description: "202 with the sync's job (GET /jobs/{id}: progress in files, result with files_added, files_changed, files_unchanged, documents_deleted, files_failed). " +
				"A sync already queued or running is answered instead of a second. A sync that cannot fetch, whose ref lost the last synced commit, or that would delete more than half of the documents fails and deletes nothing (the last two unless force). " +
				"The body is optional; with dry_run the answer is 200 with the plan.",
			Request: sourcesvc.SyncSourceRequest{}, Responses: with(with(errs(404, 409, 415, 422, 503), 202, openapi.Response{Body: library.Enqueued{}}),
				200, openapi.Response{Description: "dry_run: the plan", Body: sourcesvc.SourcePlan{}})}},
	}
}

func (h *handlers) sources() (SourceKeeper, error) {
	if h.svc.Sources == nil {
		return nil, ragd.NotFound("sources are not served here")
	}
	return h.svc.Sources, nil
}

func (h *handlers) createSource(c echo.Context) error {
	svc, err := h.sources()
	if err != nil {
		return err
	}
	var req sourcesvc.SourceRequest
	if err := bindStrict(c, &req); err != nil {
		return err
	}
	src, err := svc.Create(c.Request().Context(), req)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusCreated, src)
}

func (h *handlers) listSources(c echo.Context) error {
	svc, err := h.sources()
	if err != nil {
		return err
	}
	res, err := svc.List(c.Request().Context(), c.QueryParam("kb_name"))
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, res)
}

func (h *handlers) getSource(c echo.Context) error {
	svc, err := h.sources()
	if err != nil {
		return err
	}
	src, err := svc.Get(c.Request().Context(), c.Param("id"))
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, src)
}

func (h *handlers) patchSource(c echo.Context) error {
	svc, err := h.sources()
	if err != nil {
		return err
	}
	var req sourcesvc.SourcePatch
	if err := bindStrict(c, &req); err != nil {
		return err
	}
	src, err := svc.Update(c.Request().Context(), c.Param("id"), req)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, src)
}

func (h *handlers) deleteSource(c echo.Context) error {
	svc, err := h.sources()
	if err != nil {
		return err
	}
	keep, err := queryBool(c, "keep_documents")
	if err != nil {
		return err
	}
	res, err := svc.Delete(c.Request().Context(), c.Param("id"), keep)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, res)
}

func (h *handlers) syncSource(c echo.Context) error {
	svc, err := h.sources()
	if err != nil {
		return err
	}
	var req sourcesvc.SyncSourceRequest
	if c.Request().ContentLength != 0 {
		if err := bindStrict(c, &req); err != nil {
			return err
		}
	}
	e, plan, err := svc.Sync(c.Request().Context(), c.Param("id"), req)
	if err != nil {
		return err
	}
	if plan != nil {
		return c.JSON(http.StatusOK, plan)
	}
	return c.JSON(http.StatusAccepted, e)
}
