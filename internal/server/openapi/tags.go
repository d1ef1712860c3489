package openapi

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
)

// applyTags refines a field's schema from its jsonschema (description),
// format, enum, minimum, maximum and default tags. Values are parsed as the field's JSON type, so
// a wrong tag fails the build of the document instead of misleading
// clients.
func applyTags(s *schema, tag reflect.StructTag) error {
	// The MCP SDK reads the same tag for the tools' schemas: a field
	// shared by REST and MCP is described once.
	if doc, ok := tag.Lookup("jsonschema"); ok {
		s.Description = doc
	}
	// Bounds and allowed values of a list constrain its elements.
	target := s
	if s.Type == "array" && s.Items != nil {
		target = s.Items
	}
	if format, ok := tag.Lookup("format"); ok {
		// e.g. binary: a file in a multipart form.
		if target.Type != "string" {
			return fmt.Errorf("format: the field is not a string")
		}
		target.Format = format
	}
	if enum, ok := tag.Lookup("enum"); ok {
		for v := range strings.SplitSeq(enum, ",") {
			value, err := parseValue(target, strings.TrimSpace(v))
			if err != nil {
				return fmt.Errorf("enum: %w", err)
			}
			target.Enum = append(target.Enum, value)
		}
	}
	for _, bound := range []struct {
		name string
		dst  **float64
	}{{"minimum", &target.Minimum}, {"maximum", &target.Maximum}} {
		text, ok := tag.Lookup(bound.name)
		if !ok {
			continue
		}
		if target.Type != "integer" && target.Type != "number" {
			return fmt.Errorf("%s: the field is not a number", bound.name)
		}
		v, err := strconv.ParseFloat(text, 64)
		if err != nil {
			return fmt.Errorf("%s: %q is not a number", bound.name, text)
		}
		*bound.dst = &v
	}
	if def, ok := tag.Lookup("default"); ok {
		value, err := parseValue(s, def)
		if err != nil {
			return fmt.Errorf("default: %w", err)
		}
		if err := allowed(target, s, value); err != nil {
			return fmt.Errorf("default: %w", err)
		}
		s.Default = value
	}
	return nil
}

// parseValue reads text as a value of s's JSON type; composite types take
// JSON text, e.g. default:"[\"a\"]".
func parseValue(s *schema, text string) (any, error) {
	switch s.Type {
	case "string":
		return text, nil
	case "integer":
		if n, err := strconv.ParseInt(text, 10, 64); err == nil {
			return n, nil
		}
		if n, err := strconv.ParseUint(text, 10, 64); err == nil {
			return n, nil
		}
		return nil, fmt.Errorf("%q is not an integer", text)
	case "number":
		n, err := strconv.ParseFloat(text, 64)
		if err != nil {
			return nil, fmt.Errorf("%q is not a number", text)
		}
		return n, nil
	case "boolean":
		b, err := strconv.ParseBool(text)
		if err != nil {
			return nil, fmt.Errorf("%q is not a boolean", text)
		}
		return b, nil
	case "array", "object":
		var v any
		if err := json.Unmarshal([]byte(text), &v); err != nil {
			return nil, fmt.Errorf("%q is not JSON: %v", text, err)
		}
		return v, nil
	}
	return nil, fmt.Errorf("%q: values are only typed for scalars, arrays and objects", text)
}

// allowed checks a default against the enum and bounds set beside it.
// For a list, each element is checked against its items' constraints.
func allowed(target, s *schema, value any) error {
	values := []any{value}
	if target != s {
		list, _ := value.([]any)
		values = list
		for i, v := range values {
			// JSON numbers decode as float64; compare them as the items' type.
			if f, ok := v.(float64); ok && target.Type == "integer" {
				values[i] = int64(f)
			}
		}
	}
	for _, v := range values {
		if len(target.Enum) > 0 && !slices.Contains(target.Enum, v) {
			return fmt.Errorf("%v is not one of the enum values", v)
		}
		n, ok := toFloat(v)
		if !ok {
			continue
		}
		if target.Minimum != nil && n < *target.Minimum || target.Maximum != nil && n > *target.Maximum {
			return fmt.Errorf("%v is out of bounds", v)
		}
	}
	return nil
}

func toFloat(v any) (float64, bool) {
	switch n := v.(type) {
	case int64:
		return float64(n), true
	case uint64:
		return float64(n), true
	case float64:
		return n, true
	}
	return 0, false
}
