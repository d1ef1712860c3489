package client

import (
	"context"
	"net/http"
	"ragd/wire"
)

// Index asks the server to index one file (a path on its disk, inside its
// ingest roots), URL or text: POST /tools/rag_index. An unchanged source is
// a dedup hit (no job).
func (c *Client) Index(ctx context.Context, req wire.IndexRequest) (wire.Enqueued, error) {
	var out wire.Enqueued
	_, err := c.call(ctx, request{method: http.MethodPost, path: "/tools/rag_index", json: req,
		ok: []int{http.StatusAccepted, http.StatusOK}}, &out)
	return out, err
}

// IndexDirectory asks the server to index a directory on its disk, inside
// its ingest roots: POST /tools/rag_index_directory.
func (c *Client) IndexDirectory(ctx context.Context, req wire.DirectoryRequest) (wire.Enqueued, error) {
	var out wire.Enqueued
	_, err := c.call(ctx, request{method: http.MethodPost, path: "/tools/rag_index_directory", json: req,
		ok: []int{http.StatusAccepted, http.StatusOK}}, &out)
	return out, err
}

// Search retrieves the chunks that best match a query: POST /tools/rag_search.
func (c *Client) Search(ctx context.Context, req wire.RetrieveRequest) (wire.SearchResponse, error) {
	var out wire.SearchResponse
	_, err := c.call(ctx, request{method: http.MethodPost, path: "/tools/rag_search", json: req}, &out)
	return out, err
}

// Query answers a question from the documents: POST /tools/rag_query (not
// streamed).
func (c *Client) Query(ctx context.Context, req wire.QueryRequest) (wire.QueryResponse, error) {
	req.Stream = false
	var out wire.QueryResponse
	_, err := c.call(ctx, request{method: http.MethodPost, path: "/tools/rag_query", json: req}, &out)
	return out, err
}
