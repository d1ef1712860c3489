package client

import (
	"context"
	"io"
	"net/http"
	"net/url"
	"ragd/wire"
)

// Export streams a namespace's archive (GET /kb/{kb}/export) into w and
// returns the bytes written. An export the server aborts midway is an
// error: the archive then lacks its trailer.
func (c *Client) Export(ctx context.Context, kb string, w io.Writer) (int64, error) {
	resp, err := c.send(ctx, request{method: http.MethodGet, path: "/kb/" + url.PathEscape(kb) + "/export", ok: []int{http.StatusOK}})
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	return io.Copy(w, resp.Body)
}

// Import uploads an archive of size bytes (POST /kb/{kb}/import) and
// returns the job that loads it.
func (c *Client) Import(ctx context.Context, kb string, archive io.Reader, size int64) (wire.ImportEnqueued, error) {
	resp, err := c.send(ctx, request{method: http.MethodPost, path: "/kb/" + url.PathEscape(kb) + "/import",
		body: archive, contentType: "application/gzip", length: size, ok: []int{http.StatusAccepted}})
	if err != nil {
		return wire.ImportEnqueued{}, err
	}
	defer resp.Body.Close()
	var out wire.ImportEnqueued
	return out, decode(resp, &out)
}
