package client

import (
	"context"
	"net/http"
	"net/url"
	"ragd/wire"

	"ragd"
)

// ListDocuments is one page of a namespace's documents: GET /documents.
func (c *Client) ListDocuments(ctx context.Context, req wire.ListRequest) (wire.DocumentList, error) {
	q := url.Values{}
	setQuery(q, "kb_name", req.KBName)
	setInt(q, "limit", req.Limit)
	setInt(q, "offset", req.Offset)
	var out wire.DocumentList
	_, err := c.call(ctx, request{method: http.MethodGet, path: "/documents", query: q}, &out)
	return out, err
}

// AllDocuments pages through every document of a namespace (req's Limit
// and Offset are ignored) and returns them as one list.
func (c *Client) AllDocuments(ctx context.Context, req wire.ListRequest) (wire.DocumentList, error) {
	all := wire.DocumentList{Documents: []ragd.Document{}}
	limit, offset := maxPage, 0
	req.Limit, req.Offset = &limit, &offset
	for {
		page, err := c.ListDocuments(ctx, req)
		if err != nil {
			return wire.DocumentList{}, err
		}
		all.KBName, all.Total = page.KBName, page.Total
		all.Documents = append(all.Documents, page.Documents...)
		if page.NextOffset == nil || *page.NextOffset <= offset {
			break
		}
		offset = *page.NextOffset
	}
	all.Count = len(all.Documents)
	return all, nil
}

// DeleteDocument deletes a document and its chunks: DELETE
// /documents/{id}; kb empty searches every namespace the key may use.
func (c *Client) DeleteDocument(ctx context.Context, kb, id string) (wire.Deleted, error) {
	q := url.Values{}
	setQuery(q, "kb_name", kb)
	var out wire.Deleted
	_, err := c.call(ctx, request{method: http.MethodDelete, path: "/documents/" + url.PathEscape(id), query: q}, &out)
	return out, err
}
