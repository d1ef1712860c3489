package openapi

import (
	"fmt"
	"regexp"
	"strings"
)

// specPath converts an Echo route path such as /jobs/:id to the OpenAPI
// form /jobs/{id} and lists its parameters in order. Echo's wildcard (*)
// matches across slashes, which no OpenAPI path parameter can express, so
// it is refused rather than documented wrongly.
func specPath(echoPath string) (string, []string, error) {
	if !strings.HasPrefix(echoPath, "/") {
		return "", nil, fmt.Errorf("path %q does not start with /", echoPath)
	}
	segments := strings.Split(echoPath, "/")
	var params []string
	for i, seg := range segments {
		if strings.Contains(seg, "*") {
			return "", nil, fmt.Errorf("path %q: wildcard routes cannot be described", echoPath)
		}
		name, ok := strings.CutPrefix(seg, ":")
		if !ok {
			continue
		}
		if name == "" {
			return "", nil, fmt.Errorf("path %q: parameter without a name", echoPath)
		}
		for _, p := range params {
			if p == name {
				return "", nil, fmt.Errorf("path %q: parameter %q appears twice", echoPath, name)
			}
		}
		params = append(params, name)
		segments[i] = "{" + name + "}"
	}
	return strings.Join(segments, "/"), params, nil
}

var nonWord = regexp.MustCompile(`[^A-Za-z0-9]+`)

// operationID names an operation from its method and path, e.g.
// GET /jobs/:id → get_jobs_id, so UIs can link to it.
func operationID(method, echoPath string) string {
	words := strings.Trim(nonWord.ReplaceAllString(echoPath, "_"), "_")
	if words == "" {
		return strings.ToLower(method)
	}
	return strings.ToLower(method) + "_" + words
}
