package client

import (
	"context"
	"net/http"
	"net/url"

	"ragd"
	"ragd/wire"
)

// CreateSource adds a source kept in sync: POST /sources.
func (c *Client) CreateSource(ctx context.Context, req wire.SourceRequest) (ragd.Source, error) {
	var out ragd.Source
	_, err := c.call(ctx, request{method: http.MethodPost, path: "/sources", json: req, ok: []int{http.StatusCreated}}, &out)
	return out, err
}

// ListSources lists the sources of the namespaces the key may use, or of
// kb alone: GET /sources.
func (c *Client) ListSources(ctx context.Context, kb string) (wire.SourceList, error) {
	q := url.Values{}
	setQuery(q, "kb_name", kb)
	var out wire.SourceList
	_, err := c.call(ctx, request{method: http.MethodGet, path: "/sources", query: q}, &out)
	return out, err
}

// Source reads one source: GET /sources/{id}.
func (c *Client) Source(ctx context.Context, id string) (ragd.Source, error) {
	var out ragd.Source
	_, err := c.call(ctx, request{method: http.MethodGet, path: "/sources/" + url.PathEscape(id)}, &out)
	return out, err
}

// UpdateSource changes a source: PATCH /sources/{id}.
func (c *Client) UpdateSource(ctx context.Context, id string, req wire.SourcePatch) (ragd.Source, error) {
	var out ragd.Source
	_, err := c.call(ctx, request{method: http.MethodPatch, path: "/sources/" + url.PathEscape(id), json: req}, &out)
	return out, err
}

// DeleteSource deletes a source and, unless keepDocuments, its documents:
// DELETE /sources/{id}.
func (c *Client) DeleteSource(ctx context.Context, id string, keepDocuments bool) (wire.SourceDeleted, error) {
	q := url.Values{}
	if keepDocuments {
		q.Set("keep_documents", "true")
	}
	var out wire.SourceDeleted
	_, err := c.call(ctx, request{method: http.MethodDelete, path: "/sources/" + url.PathEscape(id), query: q}, &out)
	return out, err
}

// SyncSource starts a sync of a source now (a running one is answered
// instead): POST /sources/{id}/sync. A dry run's plan is the server's
// own type, read with the REST API directly.
func (c *Client) SyncSource(ctx context.Context, id string, force bool) (wire.Enqueued, error) {
	var out wire.Enqueued
	_, err := c.call(ctx, request{method: http.MethodPost, path: "/sources/" + url.PathEscape(id) + "/sync",
		json: wire.SyncSourceRequest{Force: force}, ok: []int{http.StatusAccepted}}, &out)
	return out, err
}
