package openapi_test

import (
	"encoding/json"
	"strings"
	"testing"

	"ragd/internal/server/openapi"
)

// build makes a document of ops and decodes it.
func build(t *testing.T, ops ...openapi.Operation) ([]byte, map[string]any) {
	t.Helper()
	raw, err := openapi.Document(openapi.Info{Title: "test", Version: "1.0"}, ops)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatalf("document is not JSON: %v\n%s", err, raw)
	}
	return raw, doc
}

// schemaOf makes a document whose only operation answers with body and
// returns the component schema that body's type became.
func schemaOf(t *testing.T, body any, name string) (map[string]any, map[string]any) {
	t.Helper()
	_, doc := build(t, openapi.Operation{Method: "GET", Path: "/x",
		Responses: map[int]openapi.Response{200: {Body: body}}})
	s := at(t, doc, "components", "schemas", name)
	return s, doc
}

// at walks doc along keys, failing the test where a key is missing.
func at(t *testing.T, doc map[string]any, keys ...string) map[string]any {
	t.Helper()
	cur := doc
	for i, k := range keys {
		next, ok := cur[k].(map[string]any)
		if !ok {
			t.Fatalf("no object at %s in %v", strings.Join(keys[:i+1], "."), cur)
		}
		cur = next
	}
	return cur
}

func asJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// opWith is an operation whose only response has body.
func opWith(body any) openapi.Operation {
	return openapi.Operation{Method: "GET", Path: "/x", Responses: map[int]openapi.Response{200: {Body: body}}}
}

// canon re-encodes JSON text with sorted keys, to compare it with asJSON.
func canon(t *testing.T, text string) string {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(text), &v); err != nil {
		t.Fatalf("bad JSON in test: %s", text)
	}
	return asJSON(v)
}
