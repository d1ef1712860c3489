package openapi_test

import (
	"bytes"
	"encoding/json"
	"slices"
	"testing"
	"time"
)

type Base struct {
	ID      string    `json:"id" jsonschema:"Identifier."`
	Created time.Time `json:"created"`
	Shadow  string    `json:"query"` // hidden by Kitchen.Query, which is shallower
}

type Meta struct {
	Note string `json:"note"`
}

// Node refers to itself, directly and through a slice.
type Node struct {
	Name     string `json:"name"`
	Children []Node `json:"children,omitempty"`
	Parent   *Node  `json:"parent,omitempty"`
}

// Kitchen has a field for every rule the generator follows.
type Kitchen struct {
	Base
	*Meta
	Query  string          `json:"query" jsonschema:"What to look for."`
	TopK   *int            `json:"top_k,omitempty" minimum:"1" maximum:"20" default:"5"`
	Mode   string          `json:"mode" enum:"hybrid, vector,keyword" default:"hybrid"`
	Weight float64         `json:"weight,omitempty"`
	Ratio  float32         `json:"ratio"`
	Count  uint16          `json:"count"`
	Tags   []string        `json:"tags"`
	Levels []int           `json:"levels" enum:"1,2,3"`
	Labels map[string]int  `json:"labels,omitempty"`
	Extra  map[string]any  `json:"extra,omitempty"`
	Raw    json.RawMessage `json:"raw"`
	Any    any             `json:"any"`
	Blob   []byte          `json:"blob"`
	Tree   *Node           `json:"tree" jsonschema:"A tree, or null."`
	Big    int64           `json:"big,string"`
	When   *time.Time      `json:"when,omitempty"`
	Flag   bool            `json:"flag" default:"true"`
	Nested struct{ A int } `json:"nested"`
	Matrix [][]float64     `json:"matrix,omitempty"`
	Hidden string          `json:"-"`
	//lint:ignore SA5008 the JSON name "-" is a rule under test
	Dash string `json:"-,"`
	//lint:ignore U1000 an unexported field is a rule under test: never sent
	private  string
	Untagged bool
	Omitzero time.Time `json:"omitzero,omitzero"`
}

func TestSchemaRules(t *testing.T) {
	t.Parallel()
	k, doc := schemaOf(t, Kitchen{}, "Kitchen")
	props := k["properties"].(map[string]any)
	prop := func(name string) map[string]any {
		p, ok := props[name].(map[string]any)
		if !ok {
			t.Fatalf("no property %q in %v", name, asJSON(props))
		}
		return p
	}
	want := map[string]string{
		"id":       `{"type":"string","description":"Identifier."}`,
		"created":  `{"type":"string","format":"date-time"}`,
		"note":     `{"type":"string"}`,
		"query":    `{"type":"string","description":"What to look for."}`,
		"top_k":    `{"type":"integer","format":"int64","nullable":true,"default":5,"minimum":1,"maximum":20}`,
		"mode":     `{"type":"string","enum":["hybrid","vector","keyword"],"default":"hybrid"}`,
		"weight":   `{"type":"number","format":"double"}`,
		"ratio":    `{"type":"number","format":"float"}`,
		"count":    `{"type":"integer","format":"int32","minimum":0}`,
		"tags":     `{"type":"array","items":{"type":"string"}}`,
		"levels":   `{"type":"array","items":{"type":"integer","format":"int64","enum":[1,2,3]}}`,
		"labels":   `{"type":"object","additionalProperties":{"type":"integer","format":"int64"}}`,
		"extra":    `{"type":"object","additionalProperties":{}}`,
		"raw":      `{}`,
		"any":      `{}`,
		"blob":     `{"type":"string","format":"byte"}`,
		"tree":     `{"allOf":[{"$ref":"#/components/schemas/Node"}],"description":"A tree, or null.","nullable":true}`,
		"big":      `{"type":"string"}`,
		"when":     `{"type":"string","format":"date-time","nullable":true}`,
		"flag":     `{"type":"boolean","default":true}`,
		"nested":   `{"type":"object","properties":{"A":{"type":"integer","format":"int64"}},"required":["A"]}`,
		"matrix":   `{"type":"array","items":{"type":"array","items":{"type":"number","format":"double"}}}`,
		"-":        `{"type":"string"}`,
		"Untagged": `{"type":"boolean"}`,
		"omitzero": `{"type":"string","format":"date-time"}`,
	}
	for name, w := range want {
		if got := asJSON(prop(name)); got != canon(t, w) {
			t.Errorf("%s:\n got %s\nwant %s", name, got, w)
		}
	}
	if len(props) != len(want) {
		t.Errorf("properties %v, want exactly %d: Hidden, private and the shadowed field must go", keys(props), len(want))
	}
	required := asJSON(k["required"])
	wantRequired := `["id","created","query","mode","ratio","count","tags","levels","raw","any","blob","big","flag","nested","-","Untagged"]`
	if required != wantRequired {
		t.Errorf("required:\n got %s\nwant %s", required, wantRequired)
	}

	// Recursion ends in a reference to the type's own component.
	node := at(t, doc, "components", "schemas", "Node", "properties")
	if got := asJSON(node["children"]); got != canon(t, `{"type":"array","items":{"$ref":"#/components/schemas/Node"}}`) {
		t.Errorf("Node.children: %s", got)
	}
	if got := asJSON(node["parent"]); got != canon(t, `{"allOf":[{"$ref":"#/components/schemas/Node"}],"nullable":true}`) {
		t.Errorf("Node.parent: %s", got)
	}
}

// Properties come in encoding/json's order, which is the struct's.
func TestSchemaPropertyOrder(t *testing.T) {
	t.Parallel()
	raw, _ := build(t, opWith(Kitchen{}))
	var doc struct {
		Components struct {
			Schemas struct {
				Kitchen struct {
					Properties json.RawMessage `json:"properties"`
				}
			}
		}
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	encoded, _ := json.Marshal(Kitchen{Meta: &Meta{}})
	want := orderedKeys(t, encoded)
	// Fields left out when empty are missing from the encoding: compare the
	// order of those it has.
	var names []string
	for _, n := range orderedKeys(t, doc.Components.Schemas.Kitchen.Properties) {
		if slices.Contains(want, n) {
			names = append(names, n)
		}
	}
	if !slices.Equal(names, want) {
		t.Fatalf("property order %v, encoding/json order %v", names, want)
	}
}

// Embedded structs follow encoding/json: a tagged embedded struct is a
// field, the same name at the same depth cancels out, and a tagged field
// beats an untagged one.
func TestSchemaEmbeddingConflicts(t *testing.T) {
	t.Parallel()
	type A struct{ X, Y string }
	type B struct {
		X string
		Y string `json:"Y"`
	}
	type Outer struct {
		A
		B
		Named Meta `json:"named"`
		Meta  `json:"meta"`
	}
	s, _ := schemaOf(t, Outer{}, "Outer")
	props := s["properties"].(map[string]any)
	if _, ok := props["X"]; ok {
		t.Errorf("X is ambiguous and must be dropped: %v", keys(props))
	}
	if _, ok := props["Y"]; !ok {
		t.Errorf("tagged Y must win: %v", keys(props))
	}
	if got := asJSON(props["meta"]); got != canon(t, `{"$ref":"#/components/schemas/Meta"}`) {
		t.Errorf("tagged embedded struct is a field: %s", got)
	}
	encoded, _ := json.Marshal(Outer{})
	if got, want := keys(props), orderedKeys(t, encoded); !slices.Equal(sorted(got), sorted(want)) {
		t.Errorf("properties %v, encoding/json sends %v", got, want)
	}
}

// A named non-struct type that contains itself stops at a free-form schema.
func TestSchemaRecursiveNonStruct(t *testing.T) {
	t.Parallel()
	type Tree map[string]Tree
	type Holder struct {
		T Tree `json:"t"`
	}
	s, _ := schemaOf(t, Holder{}, "Holder")
	if got := asJSON(at(t, s, "properties", "t")); got != canon(t, `{"type":"object","additionalProperties":{}}`) {
		t.Fatalf("recursive map: %s", got)
	}
}

func keys(m map[string]any) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

func sorted(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return s
}

// orderedKeys lists a JSON object's keys in their order in the text.
func orderedKeys(t *testing.T, raw []byte) []string {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(raw))
	if _, err := dec.Token(); err != nil {
		t.Fatal(err)
	}
	var out []string
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, tok.(string))
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			t.Fatal(err)
		}
	}
	return out
}
