package openapi_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"

	"ragd/internal/server/openapi"
)

// load parses and validates a document with kin-openapi, an independent
// implementation of the specification.
func load(t *testing.T, raw []byte) *openapi3.T {
	t.Helper()
	loader := openapi3.NewLoader()
	doc, err := loader.LoadFromData(raw)
	if err != nil {
		t.Fatalf("kin-openapi cannot load the document: %v", err)
	}
	if err := doc.Validate(loader.Context); err != nil {
		t.Fatalf("the document is not valid OpenAPI: %v\n%s", err, raw)
	}
	return doc
}

func TestDocumentIsValidOpenAPI(t *testing.T) {
	t.Parallel()
	ops := append(sampleOps(), opWith(Kitchen{}))
	raw, _ := build(t, ops...)
	doc := load(t, raw)
	if doc.Paths.Find("/jobs/{id}") == nil {
		t.Fatal("kin-openapi does not see /jobs/{id}")
	}
}

// What encoding/json sends for a value matches the schema made for its
// type: names, flattening, nullability and formats agree.
func TestSchemaAcceptsEncodedValues(t *testing.T) {
	t.Parallel()
	raw, _ := build(t, opWith(Kitchen{}), opWithPath("/v", openapi.ValidationError{}))
	doc := load(t, raw)
	topK := 7
	when := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	full := Kitchen{
		Base: Base{ID: "a", Created: when}, Meta: &Meta{Note: "n"},
		Query: "q", TopK: &topK, Mode: "vector", Tags: []string{"x"}, Levels: []int{2},
		Labels: map[string]int{"a": 1}, Extra: map[string]any{"k": []any{1, "two"}},
		Raw: json.RawMessage(`{"free":true}`), Any: 3, Blob: []byte("hi"),
		Tree: &Node{Name: "root", Children: []Node{{Name: "leaf"}}}, Big: 1 << 60, When: &when,
		Matrix: [][]float64{{1.5}}, Untagged: true,
	}
	invalid := openapi.ValidationError{Detail: []openapi.FieldError{{Loc: []string{"body", "top_k"}, Msg: "m", Type: "value_error"}}}
	// A null tree, an absent Meta and absent optional fields are fine too.
	sparse := Kitchen{Mode: "hybrid", Tags: []string{}, Levels: []int{}, Raw: json.RawMessage(`[]`), Any: "s", Blob: []byte{}}
	cases := []struct {
		component string
		value     any
	}{{"Kitchen", full}, {"Kitchen", sparse}, {"ValidationError", invalid}}
	for _, c := range cases {
		ref := doc.Components.Schemas[c.component]
		if ref == nil {
			t.Fatalf("no component %s", c.component)
		}
		encoded, err := json.Marshal(c.value)
		if err != nil {
			t.Fatal(err)
		}
		var decoded any
		if err := json.Unmarshal(encoded, &decoded); err != nil {
			t.Fatal(err)
		}
		if err := ref.Value.VisitJSON(decoded); err != nil {
			t.Errorf("%s: %s does not match its schema: %v", c.component, encoded, err)
		}
	}
	// And a value the schema forbids is refused: the checks above are not
	// vacuous.
	bad := map[string]any{"id": "a", "mode": "nope"}
	if err := doc.Components.Schemas["Kitchen"].Value.VisitJSON(bad); err == nil {
		t.Error("a Kitchen with missing fields and a bad enum was accepted")
	}
}

func opWithPath(path string, body any) openapi.Operation {
	op := opWith(body)
	op.Path = path
	return op
}
