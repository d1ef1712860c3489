package guard

import (
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"

	"ragd"
)

// FetchJSON GETs raw, an https URL, through the same address check as
// Fetch, following no redirect, and returns its body when the answer is
// 200 with a JSON media type and at most maxBytes long. It reads small
// documents a server names by URL on a client's behalf (an OAuth client's
// metadata document): errors are ragd.Invalid for a refused URL, answer or
// size, ragd.Forbidden for a non-public address, *ragd.NetError for the
// network (a timeout included); none repeats the body.
func (f *Fetcher) FetchJSON(ctx context.Context, raw string, maxBytes int64) ([]byte, error) {
	u, err := parseHTTPURL(raw)
	if err != nil {
		return nil, err
	}
	if u.Scheme != "https" {
		return nil, ragd.Invalid("url", "value_error", "%s is not an https URL", u.Redacted())
	}
	client, transport := f.client()
	defer transport.CloseIdleConnections()
	client.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, ragd.Invalid("url", "value_error", "invalid URL: %v", err)
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", "ragd/"+ragd.Version)
	resp, err := client.Do(req)
	if err != nil {
		var re *ragd.Error
		if errors.As(err, &re) {
			return nil, re // a refused address: say why plainly
		}
		return nil, &ragd.NetError{What: "fetch " + u.Redacted(), Err: err}
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, ragd.Invalid("url", "value_error", "GET %s answered HTTP %s, not 200", u.Redacted(), resp.Status)
	}
	if mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); mt != "application/json" {
		return nil, ragd.Invalid("url", "value_error", "GET %s answered %q, not application/json", u.Redacted(), mt)
	}
	tooLarge := ragd.Invalid("url", "value_error", "the document at %s exceeds %d bytes", u.Redacted(), maxBytes)
	if resp.ContentLength > maxBytes {
		return nil, tooLarge
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxBytes+1))
	if err != nil {
		return nil, &ragd.NetError{What: fmt.Sprintf("fetch %s: reading body", u.Redacted()), Err: err}
	}
	if int64(len(body)) > maxBytes {
		return nil, tooLarge
	}
	return body, nil
}
