package client

import (
	"context"
	"net/http"

	"ragd/wire"
)

// Embedder is the live embedder and the switch under way: GET /embedder.
func (c *Client) Embedder(ctx context.Context) (wire.EmbedderStatus, error) {
	var out wire.EmbedderStatus
	_, err := c.call(ctx, request{method: http.MethodGet, path: "/embedder"}, &out)
	return out, err
}

// SwitchEmbedder starts a switch to the named embedder: POST
// /embedder/switch. Follow the job it returns with Job.
func (c *Client) SwitchEmbedder(ctx context.Context, to string) (wire.SwitchAccepted, error) {
	var out wire.SwitchAccepted
	_, err := c.call(ctx, request{method: http.MethodPost, path: "/embedder/switch", json: wire.SwitchRequest{To: to}, ok: []int{http.StatusAccepted}}, &out)
	return out, err
}
