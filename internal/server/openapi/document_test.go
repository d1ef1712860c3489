package openapi_test

import (
	"regexp"
	"strings"
	"testing"
	"time"

	"ragd/internal/server/openapi"
)

// FieldError shares its name with openapi.FieldError, so both must be
// prefixed by their package.
type FieldError struct {
	Field string `json:"field"`
}

type searchRequest struct {
	Query string `json:"query"`
	TopK  *int   `json:"top_k,omitempty" minimum:"1" maximum:"20" default:"5"`
}

type searchResponse struct {
	Results []searchResult `json:"results"`
	Errors  []FieldError   `json:"errors,omitempty"`
}

type searchResult struct {
	Text  string    `json:"text"`
	Score float64   `json:"score"`
	At    time.Time `json:"at"`
}

type job struct {
	ID     string `json:"id"`
	Status string `json:"status" enum:"queued,active,completed,failed"`
}

// sampleOps describe a small API like ragd's.
func sampleOps() []openapi.Operation {
	return []openapi.Operation{
		{Method: "GET", Path: "/", Summary: "Server info", Tags: []string{"meta"},
			Responses: map[int]openapi.Response{200: {Body: map[string]string{}}}},
		{Method: "post", Path: "/tools/rag_search", Summary: "Search", Tags: []string{"tools"},
			Request: searchRequest{},
			Responses: map[int]openapi.Response{
				200: {Description: "Results, best first.", Body: searchResponse{}},
				422: {Body: openapi.ValidationError{}},
				503: {Body: openapi.ErrorDetail{}},
			}},
		{Method: "GET", Path: "/jobs/:id", Tags: []string{"jobs"},
			Responses: map[int]openapi.Response{200: {Body: &job{}}, 404: {Body: openapi.ErrorDetail{}}}},
		{Method: "DELETE", Path: "/kb/:kb/docs/:doc", Tags: []string{"tools"},
			Query:     []openapi.Param{{Name: "force", Type: "boolean", Description: "Even if in use."}},
			Responses: map[int]openapi.Response{204: {}}},
		{Method: "GET", Path: "/stream", Tags: []string{"search"},
			Query: []openapi.Param{{Name: "topic", Required: true}, {Name: "max_results", Type: "integer"}},
			Responses: map[int]openapi.Response{
				200: {ContentType: "text/event-stream", Description: "One event per result."},
			}},
		{Method: "GET", Path: "/metrics",
			Responses: map[int]openapi.Response{200: {ContentType: "text/plain"}}},
		{Method: "GET", Path: "/health", Responses: map[int]openapi.Response{
			200: {Body: map[string]bool{}}, 503: {Body: map[string]bool{}}}},
	}
}

func TestDocumentShape(t *testing.T) {
	t.Parallel()
	_, doc := build(t, sampleOps()...)
	for _, key := range []string{"openapi", "info", "paths", "components"} {
		if _, ok := doc[key]; !ok {
			t.Errorf("document lacks %q", key)
		}
	}
	if doc["openapi"] != "3.0.3" {
		t.Errorf("openapi %v", doc["openapi"])
	}
	if info := at(t, doc, "info"); info["title"] != "test" || info["version"] != "1.0" {
		t.Errorf("info %v", info)
	}
	if got := asJSON(doc["tags"]); got != `[{"name":"meta"},{"name":"tools"},{"name":"jobs"},{"name":"search"}]` {
		t.Errorf("tags in order of first use: %s", got)
	}

	search := at(t, doc, "paths", "/tools/rag_search", "post")
	if search["operationId"] != "post_tools_rag_search" || search["summary"] != "Search" {
		t.Errorf("search operation: %v", search)
	}
	body := at(t, search, "requestBody")
	if body["required"] != true || asJSON(at(t, body, "content", "application/json", "schema")) != `{"$ref":"#/components/schemas/searchRequest"}` {
		t.Errorf("request body: %s", asJSON(body))
	}
	if got := at(t, search, "responses", "200")["description"]; got != "Results, best first." {
		t.Errorf("200 description %v", got)
	}
	if got := at(t, search, "responses", "422")["description"]; got != "Unprocessable Entity" {
		t.Errorf("default description is the status text, got %v", got)
	}
	if got := asJSON(at(t, search, "responses", "422", "content", "application/json", "schema")); got != `{"$ref":"#/components/schemas/ValidationError"}` {
		t.Errorf("422 schema %s", got)
	}

	del := at(t, doc, "paths", "/kb/{kb}/docs/{doc}", "delete")
	wantParams := canon(t, `[
		{"name":"kb","in":"path","required":true,"schema":{"type":"string"}},
		{"name":"doc","in":"path","required":true,"schema":{"type":"string"}},
		{"name":"force","in":"query","description":"Even if in use.","schema":{"type":"boolean"}}]`)
	if got := asJSON(del["parameters"]); got != wantParams {
		t.Errorf("parameters:\n got %s\nwant %s", got, wantParams)
	}
	if got := asJSON(at(t, del, "responses", "204")); got != `{"description":"No Content"}` {
		t.Errorf("204: %s", got)
	}

	if got := asJSON(at(t, doc, "paths", "/stream", "get", "responses", "200", "content")); got != `{"text/event-stream":{"schema":{"type":"string"}}}` {
		t.Errorf("event stream: %s", got)
	}
	if _, ok := at(t, doc, "paths", "/metrics", "get", "responses", "200", "content")["text/plain"]; !ok {
		t.Errorf("text/plain response missing")
	}
	// A pointer body is the value it points to, not a nullable one.
	if got := asJSON(at(t, doc, "paths", "/jobs/{id}", "get", "responses", "200", "content", "application/json", "schema")); got != `{"$ref":"#/components/schemas/job"}` {
		t.Errorf("pointer body: %s", got)
	}
	if got := asJSON(at(t, doc, "components", "schemas", "job", "properties", "status")["enum"]); got != `["queued","active","completed","failed"]` {
		t.Errorf("enum: %s", got)
	}
}

func TestDocumentNamesCollidingTypes(t *testing.T) {
	t.Parallel()
	_, doc := build(t, sampleOps()...)
	schemas := at(t, doc, "components", "schemas")
	for _, name := range []string{"openapi.FieldError", "openapi_test.FieldError", "ValidationError", "ErrorDetail", "searchResponse", "searchResult"} {
		if _, ok := schemas[name]; !ok {
			t.Errorf("no component %q in %v", name, keys(schemas))
		}
	}
	if _, ok := schemas["FieldError"]; ok {
		t.Errorf("ambiguous FieldError must not be used as a name")
	}
	if got := asJSON(at(t, schemas, "openapi_test.FieldError", "properties")); got != `{"field":{"type":"string"}}` {
		t.Errorf("test FieldError: %s", got)
	}
	if got := asJSON(at(t, schemas, "ValidationError", "properties", "detail", "items")); got != `{"$ref":"#/components/schemas/openapi.FieldError"}` {
		t.Errorf("ValidationError refers to the package's FieldError: %s", got)
	}
}

// Every $ref in the document names a component that exists.
func TestDocumentRefsResolve(t *testing.T) {
	t.Parallel()
	raw, doc := build(t, sampleOps()...)
	schemas := at(t, doc, "components", "schemas")
	refs := regexp.MustCompile(`"\$ref":\s*"([^"]*)"`).FindAllStringSubmatch(string(raw), -1)
	if len(refs) == 0 {
		t.Fatal("no $ref at all")
	}
	for _, m := range refs {
		name, ok := strings.CutPrefix(m[1], "#/components/schemas/")
		if !ok {
			t.Errorf("$ref %q is not to a component schema", m[1])
			continue
		}
		if _, ok := schemas[name]; !ok {
			t.Errorf("$ref %q names no component", m[1])
		}
	}
}

func TestPathConversion(t *testing.T) {
	t.Parallel()
	cases := map[string]string{
		"/":                      "/",
		"/health":                "/health",
		"/jobs/:id":              "/jobs/{id}",
		"/kb/:kb_name/docs/:doc": "/kb/{kb_name}/docs/{doc}",
		"/a/:x/b":                "/a/{x}/b",
	}
	for echoPath, want := range cases {
		_, doc := build(t, openapi.Operation{Method: "GET", Path: echoPath,
			Responses: map[int]openapi.Response{200: {}}})
		paths := at(t, doc, "paths")
		if _, ok := paths[want]; !ok || len(paths) != 1 {
			t.Errorf("%s: paths %v, want %s", echoPath, keys(paths), want)
		}
	}
}

func TestDocumentIsDeterministic(t *testing.T) {
	t.Parallel()
	first, _ := build(t, sampleOps()...)
	for range 5 {
		if again, _ := build(t, sampleOps()...); string(again) != string(first) {
			t.Fatal("two builds of the same operations differ")
		}
	}
}

func TestDocumentErrors(t *testing.T) {
	t.Parallel()
	ok := map[int]openapi.Response{200: {}}
	type badTag struct {
		N int `json:"n" minimum:"one"`
	}
	type badEnum struct {
		N int `json:"n" enum:"1,two"`
	}
	type badDefault struct {
		N int `json:"n" maximum:"3" default:"4"`
	}
	type chanField struct {
		C chan int `json:"c"`
	}
	type structKey struct {
		M map[struct{ A int }]int `json:"m"`
	}
	cases := []struct {
		name string
		info openapi.Info
		op   openapi.Operation
		want string
	}{
		{"no title", openapi.Info{Version: "1"}, openapi.Operation{Method: "GET", Path: "/", Responses: ok}, "title"},
		{"wildcard", openapi.Info{}, openapi.Operation{Method: "GET", Path: "/monitoring/*", Responses: ok}, "wildcard"},
		{"relative path", openapi.Info{}, openapi.Operation{Method: "GET", Path: "x", Responses: ok}, "start with /"},
		{"unknown method", openapi.Info{}, openapi.Operation{Method: "BREW", Path: "/", Responses: ok}, "BREW"},
		{"no responses", openapi.Info{}, openapi.Operation{Method: "GET", Path: "/"}, "no responses"},
		{"bad status", openapi.Info{}, openapi.Operation{Method: "GET", Path: "/", Responses: map[int]openapi.Response{42: {}}}, "not an HTTP status"},
		{"query type", openapi.Info{}, openapi.Operation{Method: "GET", Path: "/", Responses: ok,
			Query: []openapi.Param{{Name: "q", Type: "date"}}}, "unknown type"},
		{"query clash", openapi.Info{}, openapi.Operation{Method: "GET", Path: "/:q", Responses: ok,
			Query: []openapi.Param{{Name: "q"}}}, "twice"},
		{"bad minimum", openapi.Info{}, openapi.Operation{Method: "POST", Path: "/", Request: badTag{}, Responses: ok}, "minimum"},
		{"bad enum", openapi.Info{}, openapi.Operation{Method: "POST", Path: "/", Request: badEnum{}, Responses: ok}, "enum"},
		{"default out of bounds", openapi.Info{}, openapi.Operation{Method: "POST", Path: "/", Request: badDefault{}, Responses: ok}, "out of bounds"},
		{"channel", openapi.Info{}, openapi.Operation{Method: "POST", Path: "/", Request: chanField{}, Responses: ok}, "chan"},
		{"struct map key", openapi.Info{}, openapi.Operation{Method: "POST", Path: "/", Request: structKey{}, Responses: ok}, "map key"},
	}
	for _, c := range cases {
		if c.info.Title == "" && c.info.Version == "" {
			c.info = openapi.Info{Title: "t", Version: "1"}
		}
		_, err := openapi.Document(c.info, []openapi.Operation{c.op})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one containing %q", c.name, err, c.want)
		}
	}
	twice := []openapi.Operation{{Method: "GET", Path: "/a", Responses: ok}, {Method: "get", Path: "/a", Responses: ok}}
	if _, err := openapi.Document(openapi.Info{Title: "t", Version: "1"}, twice); err == nil || !strings.Contains(err.Error(), "twice") {
		t.Errorf("same route twice: %v", err)
	}
}
