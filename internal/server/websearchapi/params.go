package websearchapi

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"

	"ragd"
	"ragd/internal/adapter/websearch"
)

// objectParams decodes params, which must be absent, null or an object.
func objectParams(raw json.RawMessage) (map[string]json.RawMessage, *rpcError) {
	p := map[string]json.RawMessage{}
	if raw == nil {
		return p, nil
	}
	if raw[0] != '{' || json.Unmarshal(raw, &p) != nil {
		return nil, invalidParams("", "params must be an object")
	}
	return p, nil
}

// stringParam reads an optional string parameter.
func stringParam(p map[string]json.RawMessage, name string) (string, *rpcError) {
	raw, ok := p[name]
	if !ok || string(raw) == "null" {
		return "", nil
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return "", invalidParams(name, name+" must be a string")
	}
	return s, nil
}

// maxResultsParam reads max_results: absent or null means the default; a
// whole number such as 5 or 5.0 is accepted, "5" and 5.5 are not.
func maxResultsParam(p map[string]json.RawMessage) (int, *rpcError) {
	raw, ok := p["max_results"]
	if !ok || string(raw) == "null" {
		return websearch.DefaultMaxResults, nil
	}
	var f float64
	if raw[0] == '"' || json.Unmarshal(raw, &f) != nil || f != math.Trunc(f) || math.Abs(f) > 1e9 {
		return 0, invalidParams("max_results", "max_results must be an integer")
	}
	return int(f), nil
}

// checkArgs applies websearch.Validate and words its failure for clients.
func checkArgs(query string, maxResults int) *rpcError {
	if strings.TrimSpace(query) == "" {
		return invalidParams("query", `a non-empty "query" (or "topic") is required`)
	}
	err := websearch.Validate(query, maxResults)
	if err == nil {
		return nil
	}
	return validationError(err)
}

// validationError maps a ragd.Invalid error to -32602 naming its field.
func validationError(err error) *rpcError {
	var re *ragd.Error
	if errors.As(err, &re) && len(re.Fields) > 0 {
		loc := re.Fields[0].Loc
		return invalidParams(loc[len(loc)-1], re.Fields[0].Msg)
	}
	return invalidParams("", fmt.Sprint(err))
}
