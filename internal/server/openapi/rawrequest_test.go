package openapi_test

import (
	"testing"

	"ragd/internal/server/openapi"
)

// A body that is not JSON is declared binary under its own media type.
func TestRawRequestBody(t *testing.T) {
	t.Parallel()
	_, doc := build(t, openapi.Operation{Method: "POST", Path: "/kb/:kb_name/import", RawRequest: "application/gzip",
		Responses: map[int]openapi.Response{202: {}}})
	body := at(t, doc, "paths", "/kb/{kb_name}/import", "post", "requestBody")
	if got := asJSON(body); got != `{"content":{"application/gzip":{"schema":{"format":"binary","type":"string"}}},"required":true}` {
		t.Fatalf("request body %s", got)
	}
}
