package openapi

// Info is the document's info object.
type Info struct {
	Title, Version, Description string
}

// Operation describes one route.
type Operation struct {
	// Method is the HTTP method, e.g. "GET".
	Method string
	// Path is Echo-style, e.g. "/jobs/:id"; each :param becomes {param}
	// in the document and a required path parameter.
	Path                 string
	Summary, Description string
	Tags                 []string
	// Query lists the query parameters.
	Query []Param
	// Request is nil, or a zero value of the JSON request body type,
	// e.g. rag.SearchRequest{}.
	Request any
	// RequestContentType is the request body's media type, application/json
	// when empty. For multipart/form-data, Request's fields are the form's
	// fields; tag a field format:"binary" for a file (a []string for a
	// repeated file field).
	RequestContentType string
	// RawRequest, when set instead of Request, is the media type of a
	// request body that is not JSON (e.g. application/gzip), declared as
	// binary.
	RawRequest string
	// Responses maps a status code to its response; at least one is needed.
	Responses map[int]Response
}

// Param is a query parameter.
type Param struct {
	Name, Description string
	Required          bool
	// Type is "string" (the default), "integer", "number" or "boolean".
	Type string
}

// Response is one status code's answer.
type Response struct {
	// Description defaults to the status text.
	Description string
	// Body is a zero value of the body type, or nil for no body.
	Body any
	// ContentType defaults to application/json; e.g. text/event-stream,
	// text/plain. With a nil Body it still declares a string body.
	ContentType string
}
