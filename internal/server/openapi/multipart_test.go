package openapi_test

import (
	"strings"
	"testing"

	"ragd/internal/server/openapi"
)

type uploadForm struct {
	File   []string `json:"file" format:"binary" jsonschema:"the files"`
	KBName string   `json:"kb_name,omitempty"`
}

// A multipart request is described under its media type, its file fields
// as binary strings, and the document stays valid OpenAPI.
func TestMultipartRequest(t *testing.T) {
	t.Parallel()
	op := openapi.Operation{Method: "POST", Path: "/documents", RequestContentType: "multipart/form-data",
		Request: uploadForm{}, Responses: map[int]openapi.Response{202: {}}}
	raw, doc := build(t, op)
	load(t, raw)
	content := at(t, doc, "paths", "/documents", "post", "requestBody", "content")
	if _, ok := content["application/json"]; ok || len(content) != 1 {
		t.Fatalf("content: %s", asJSON(content))
	}
	if got := asJSON(at(t, content, "multipart/form-data", "schema")); got != `{"$ref":"#/components/schemas/uploadForm"}` {
		t.Errorf("schema: %s", got)
	}
	want := canon(t, `{"type":"array","description":"the files","items":{"type":"string","format":"binary"}}`)
	if got := asJSON(at(t, doc, "components", "schemas", "uploadForm", "properties", "file")); got != want {
		t.Errorf("file field:\n got %s\nwant %s", got, want)
	}
	// A format on a field that is not a string is refused.
	type badFormat struct {
		N int `json:"n" format:"binary"`
	}
	op.Request = badFormat{}
	if _, err := openapi.Document(openapi.Info{Title: "t", Version: "1"}, []openapi.Operation{op}); err == nil || !strings.Contains(err.Error(), "format") {
		t.Errorf("format on an integer: %v", err)
	}
}
