package openapi

import (
	"bytes"
	"encoding/json"
)

// marshalJSON encodes v without escaping <, > and &: descriptions stay
// readable in the document.
func marshalJSON(v any) ([]byte, error) {
	return encode(v, "")
}

// marshalIndent is marshalJSON indented by two spaces, for people reading
// the document with curl.
func marshalIndent(v any) ([]byte, error) {
	out, err := encode(v, "  ")
	if err != nil {
		return nil, err
	}
	return append(out, '\n'), nil
}

func encode(v any, indent string) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", indent)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(b.Bytes(), "\n"), nil
}
