package openapi

import (
	"encoding"
	"encoding/json"
	"fmt"
	"reflect"
	"time"
)

var (
	timeType          = reflect.TypeFor[time.Time]()
	rawMessageType    = reflect.TypeFor[json.RawMessage]()
	numberType        = reflect.TypeFor[json.Number]()
	jsonMarshalerType = reflect.TypeFor[json.Marshaler]()
	textMarshalerType = reflect.TypeFor[encoding.TextMarshaler]()
)

// generator turns Go types into schemas, collecting named struct types as
// components as it meets them.
type generator struct {
	components map[reflect.Type]*schema
	order      []reflect.Type // components in the order met, for stable names
	// building holds named non-struct types under construction: a type such
	// as `type Tree map[string]Tree` would otherwise recurse forever.
	building map[reflect.Type]bool
}

func newGenerator() *generator {
	return &generator{components: map[reflect.Type]*schema{}, building: map[reflect.Type]bool{}}
}

// schemaOf returns a fresh schema for t; callers may change it freely.
func (g *generator) schemaOf(t reflect.Type) (*schema, error) {
	if t == nil {
		return &schema{}, nil
	}
	switch t {
	case timeType:
		return &schema{Type: "string", Format: "date-time"}, nil
	case rawMessageType:
		return &schema{}, nil
	case numberType:
		return &schema{Type: "number"}, nil
	}
	if t.Kind() == reflect.Pointer {
		s, err := g.schemaOf(t.Elem())
		if err != nil {
			return nil, err
		}
		s.Nullable = true
		return s, nil
	}
	// A type that encodes itself could produce anything; one that encodes
	// as text is a string.
	if implements(t, jsonMarshalerType) {
		return &schema{}, nil
	}
	if implements(t, textMarshalerType) {
		return &schema{Type: "string"}, nil
	}
	if t.Name() != "" && t.Kind() != reflect.Struct {
		if g.building[t] {
			return &schema{}, nil
		}
		g.building[t] = true
		defer delete(g.building, t)
	}
	return g.byKind(t)
}

func (g *generator) byKind(t reflect.Type) (*schema, error) {
	switch t.Kind() {
	case reflect.Bool:
		return &schema{Type: "boolean"}, nil
	case reflect.Int, reflect.Int64:
		return &schema{Type: "integer", Format: "int64"}, nil
	case reflect.Int8, reflect.Int16, reflect.Int32:
		return &schema{Type: "integer", Format: "int32"}, nil
	case reflect.Uint, reflect.Uint64, reflect.Uintptr:
		return &schema{Type: "integer", Format: "int64", Minimum: new(0.0)}, nil
	case reflect.Uint8, reflect.Uint16, reflect.Uint32:
		return &schema{Type: "integer", Format: "int32", Minimum: new(0.0)}, nil
	case reflect.Float32:
		return &schema{Type: "number", Format: "float"}, nil
	case reflect.Float64:
		return &schema{Type: "number", Format: "double"}, nil
	case reflect.String:
		return &schema{Type: "string"}, nil
	case reflect.Interface:
		return &schema{}, nil
	case reflect.Slice:
		// encoding/json sends []byte as base64, unless its elements encode
		// themselves.
		if e := t.Elem(); e.Kind() == reflect.Uint8 && !implements(e, jsonMarshalerType) && !implements(e, textMarshalerType) {
			return &schema{Type: "string", Format: "byte"}, nil
		}
		return g.array(t)
	case reflect.Array:
		return g.array(t)
	case reflect.Map:
		return g.object(t)
	case reflect.Struct:
		if t.Name() == "" {
			return g.structSchema(t)
		}
		return g.component(t)
	}
	return nil, fmt.Errorf("type %s: %s cannot be encoded as JSON", t, t.Kind())
}

func (g *generator) array(t reflect.Type) (*schema, error) {
	items, err := g.schemaOf(t.Elem())
	if err != nil {
		return nil, err
	}
	return &schema{Type: "array", Items: items}, nil
}

// object describes a map: encoding/json accepts string, integer and
// text-marshaling keys, all of which become JSON strings.
func (g *generator) object(t reflect.Type) (*schema, error) {
	switch k := t.Key(); {
	case k.Kind() == reflect.String, implements(k, textMarshalerType):
	case k.Kind() >= reflect.Int && k.Kind() <= reflect.Uintptr:
	default:
		return nil, fmt.Errorf("type %s: map key %s cannot be encoded as JSON", t, k)
	}
	values, err := g.schemaOf(t.Elem())
	if err != nil {
		return nil, err
	}
	return &schema{Type: "object", AdditionalProperties: values}, nil
}

// component registers a named struct type and refers to it. It is
// registered before its fields are built, so a type that contains itself
// finds its own entry and refers to it instead of recursing.
func (g *generator) component(t reflect.Type) (*schema, error) {
	if _, ok := g.components[t]; !ok {
		placeholder := &schema{}
		g.components[t] = placeholder
		g.order = append(g.order, t)
		s, err := g.structSchema(t)
		if err != nil {
			return nil, err // the document fails as a whole
		}
		*placeholder = *s
	}
	return &schema{refTo: t}, nil
}

func (g *generator) structSchema(t reflect.Type) (*schema, error) {
	s := &schema{Type: "object"}
	for _, f := range jsonFields(t) {
		fs, err := g.fieldSchema(f)
		if err != nil {
			return nil, fmt.Errorf("%s.%s: %w", t, f.sf.Name, err)
		}
		if s.Properties == nil {
			s.Properties = &ordered[*schema]{}
		}
		s.Properties.set(f.name, fs)
		if f.required() {
			s.Required = append(s.Required, f.name)
		}
	}
	return s, nil
}

func (g *generator) fieldSchema(f field) (*schema, error) {
	s, err := g.schemaOf(f.sf.Type)
	if err != nil {
		return nil, err
	}
	if f.asString && isScalar(s.Type) {
		// ",string" quotes the value: a number is then sent as "42".
		s.Type, s.Format, s.Minimum = "string", "", nil
	}
	if err := applyTags(s, f.sf.Tag); err != nil {
		return nil, err
	}
	return s, nil
}

func isScalar(typ string) bool {
	return typ == "integer" || typ == "number" || typ == "boolean" || typ == "string"
}

// implements reports whether t or *t has the method set of iface, as
// encoding/json checks for addressable values.
func implements(t, iface reflect.Type) bool {
	return t.Implements(iface) || (t.Kind() != reflect.Pointer && reflect.PointerTo(t).Implements(iface))
}
