package openapi

// The OpenAPI 3.0.3 objects the document is made of, with only the fields
// this package fills.

type document struct {
	OpenAPI    string              `json:"openapi"`
	Info       info                `json:"info"`
	Tags       []tag               `json:"tags,omitempty"`
	Paths      *ordered[*pathItem] `json:"paths"`
	Components components          `json:"components"`
}

type info struct {
	Title       string `json:"title"`
	Version     string `json:"version"`
	Description string `json:"description,omitempty"`
}

type tag struct {
	Name string `json:"name"`
}

type components struct {
	Schemas map[string]*schema `json:"schemas"`
}

type pathItem struct {
	Get     *operation `json:"get,omitempty"`
	Put     *operation `json:"put,omitempty"`
	Post    *operation `json:"post,omitempty"`
	Delete  *operation `json:"delete,omitempty"`
	Options *operation `json:"options,omitempty"`
	Head    *operation `json:"head,omitempty"`
	Patch   *operation `json:"patch,omitempty"`
	Trace   *operation `json:"trace,omitempty"`
}

type operation struct {
	Tags        []string             `json:"tags,omitempty"`
	Summary     string               `json:"summary,omitempty"`
	Description string               `json:"description,omitempty"`
	OperationID string               `json:"operationId"`
	Parameters  []parameter          `json:"parameters,omitempty"`
	RequestBody *requestBody         `json:"requestBody,omitempty"`
	Responses   map[string]*response `json:"responses"`
}

type parameter struct {
	Name        string  `json:"name"`
	In          string  `json:"in"`
	Description string  `json:"description,omitempty"`
	Required    bool    `json:"required,omitempty"`
	Schema      *schema `json:"schema"`
}

type requestBody struct {
	Required bool                 `json:"required"`
	Content  map[string]mediaType `json:"content"`
}

type response struct {
	Description string               `json:"description"`
	Content     map[string]mediaType `json:"content,omitempty"`
}

type mediaType struct {
	Schema *schema `json:"schema"`
}

// slot returns where an operation of method goes in p, or nil for a method
// OpenAPI has no place for.
func (p *pathItem) slot(method string) **operation {
	switch method {
	case "GET":
		return &p.Get
	case "PUT":
		return &p.Put
	case "POST":
		return &p.Post
	case "DELETE":
		return &p.Delete
	case "OPTIONS":
		return &p.Options
	case "HEAD":
		return &p.Head
	case "PATCH":
		return &p.Patch
	case "TRACE":
		return &p.Trace
	}
	return nil
}
