package openapi

import (
	"cmp"
	"errors"
	"fmt"
	"net/http"
	"reflect"
	"strconv"
	"strings"
)

// Document builds the OpenAPI 3.0.3 document for ops, as indented JSON.
// Schemas of named struct types go to components/schemas, named by Go type
// name (prefixed by the package name where two packages share one), and are
// referenced with $ref. It fails on anything it could not describe
// truthfully: an unknown method, a wildcard path, a type JSON cannot encode
// or a struct tag that does not parse.
func Document(inf Info, ops []Operation) ([]byte, error) {
	if inf.Title == "" || inf.Version == "" {
		return nil, errors.New("openapi: info needs a title and a version")
	}
	b := &builder{gen: newGenerator(), ids: map[string]bool{}, tagged: map[string]bool{}}
	doc := &document{
		OpenAPI:    "3.0.3",
		Info:       info(inf),
		Paths:      &ordered[*pathItem]{},
		Components: components{Schemas: map[string]*schema{}},
	}
	for _, op := range ops {
		if err := b.add(doc, op); err != nil {
			return nil, fmt.Errorf("openapi: %s %s: %w", op.Method, op.Path, err)
		}
	}
	names := componentNames(b.gen.order)
	for t, s := range b.gen.components {
		link(s, names)
		doc.Components.Schemas[names[t]] = s
	}
	for _, s := range b.roots {
		link(s, names)
	}
	out, err := marshalIndent(doc)
	if err != nil {
		return nil, fmt.Errorf("openapi: %w", err)
	}
	return out, nil
}

// builder adds operations to a document, remembering what must be unique.
type builder struct {
	gen    *generator
	roots  []*schema // schemas outside components, whose refs need linking
	ids    map[string]bool
	tagged map[string]bool
}

func (b *builder) add(doc *document, op Operation) error {
	method := strings.ToUpper(op.Method)
	p, pathParams, err := specPath(op.Path)
	if err != nil {
		return err
	}
	item, ok := doc.Paths.get(p)
	if !ok {
		item = &pathItem{}
		doc.Paths.set(p, item)
	}
	slot := item.slot(method)
	switch {
	case slot == nil:
		return fmt.Errorf("method %q has no place in OpenAPI", op.Method)
	case *slot != nil:
		return errors.New("route described twice")
	}
	o, err := b.operation(op, method, pathParams)
	if err != nil {
		return err
	}
	*slot = o
	for _, t := range op.Tags {
		if !b.tagged[t] {
			b.tagged[t] = true
			doc.Tags = append(doc.Tags, tag{Name: t})
		}
	}
	return nil
}

func (b *builder) operation(op Operation, method string, pathParams []string) (*operation, error) {
	o := &operation{Tags: op.Tags, Summary: op.Summary, Description: op.Description,
		OperationID: b.uniqueID(operationID(method, op.Path)), Responses: map[string]*response{}}
	names := map[string]bool{}
	for _, name := range pathParams {
		names[name] = true
		o.Parameters = append(o.Parameters, parameter{Name: name, In: "path", Required: true, Schema: &schema{Type: "string"}})
	}
	for _, q := range op.Query {
		typ := cmp.Or(q.Type, "string")
		switch {
		case q.Name == "":
			return nil, errors.New("query parameter without a name")
		case names[q.Name]:
			return nil, fmt.Errorf("parameter %q is given twice", q.Name)
		case !isScalar(typ):
			return nil, fmt.Errorf("query parameter %q: unknown type %q", q.Name, q.Type)
		}
		names[q.Name] = true
		o.Parameters = append(o.Parameters, parameter{Name: q.Name, In: "query", Description: q.Description,
			Required: q.Required, Schema: &schema{Type: typ}})
	}
	if op.Request != nil {
		s, err := b.body(op.Request)
		if err != nil {
			return nil, fmt.Errorf("request: %w", err)
		}
		o.RequestBody = &requestBody{Required: true, Content: map[string]mediaType{cmp.Or(op.RequestContentType, "application/json"): {Schema: s}}}
	} else if op.RawRequest != "" {
		o.RequestBody = &requestBody{Required: true, Content: map[string]mediaType{op.RawRequest: {Schema: &schema{Type: "string", Format: "binary"}}}}
	}
	if len(op.Responses) == 0 {
		return nil, errors.New("no responses")
	}
	for code, r := range op.Responses {
		resp, err := b.response(code, r)
		if err != nil {
			return nil, fmt.Errorf("response %d: %w", code, err)
		}
		o.Responses[strconv.Itoa(code)] = resp
	}
	return o, nil
}

func (b *builder) response(code int, r Response) (*response, error) {
	if code < 100 || code > 599 {
		return nil, errors.New("not an HTTP status")
	}
	resp := &response{Description: cmp.Or(r.Description, http.StatusText(code), "response")}
	if r.Body == nil && r.ContentType == "" {
		return resp, nil
	}
	s := &schema{Type: "string"} // a stream or text without a Go type
	if r.Body != nil {
		var err error
		if s, err = b.body(r.Body); err != nil {
			return nil, err
		}
	}
	resp.Content = map[string]mediaType{cmp.Or(r.ContentType, "application/json"): {Schema: s}}
	return resp, nil
}

// body describes a request or response body from a value of its type. A
// pointer is looked through: a body is the value, never JSON null.
func (b *builder) body(v any) (*schema, error) {
	t := reflect.TypeOf(v)
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	s, err := b.gen.schemaOf(t)
	if err != nil {
		return nil, err
	}
	b.roots = append(b.roots, s)
	return s, nil
}

// uniqueID numbers an operation id already taken, e.g. by /a-b and /a_b.
func (b *builder) uniqueID(id string) string {
	unique := id
	for n := 2; b.ids[unique]; n++ {
		unique = id + "_" + strconv.Itoa(n)
	}
	b.ids[unique] = true
	return unique
}
