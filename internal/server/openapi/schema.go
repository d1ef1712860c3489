package openapi

import "reflect"

// schema is an OpenAPI 3.0 schema object, with only the keywords this
// package emits.
type schema struct {
	Ref                  string            `json:"$ref,omitempty"`
	AllOf                []*schema         `json:"allOf,omitempty"`
	Type                 string            `json:"type,omitempty"`
	Format               string            `json:"format,omitempty"`
	Description          string            `json:"description,omitempty"`
	Nullable             bool              `json:"nullable,omitempty"`
	Enum                 []any             `json:"enum,omitempty"`
	Default              any               `json:"default,omitempty"`
	Minimum              *float64          `json:"minimum,omitempty"`
	Maximum              *float64          `json:"maximum,omitempty"`
	Items                *schema           `json:"items,omitempty"`
	Properties           *ordered[*schema] `json:"properties,omitempty"`
	Required             []string          `json:"required,omitempty"`
	AdditionalProperties *schema           `json:"additionalProperties,omitempty"`

	// refTo is the named struct type this schema refers to. Ref is filled
	// from it once every type is known, since a name may need its package
	// to be unique.
	refTo reflect.Type
}

// hasExtras reports whether s says more than its $ref; in OpenAPI 3.0 the
// siblings of a $ref are ignored, so such a schema must wrap it in allOf.
func (s *schema) hasExtras() bool {
	return s.Description != "" || s.Nullable || s.Default != nil || len(s.Enum) > 0 ||
		s.Minimum != nil || s.Maximum != nil
}
