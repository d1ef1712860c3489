package openapi

// ValidationError is the 422 body: the fields at fault, shaped as FastAPI
// shapes them so clients of either server parse the same thing.
type ValidationError struct {
	Detail []FieldError `json:"detail" jsonschema:"The fields at fault."`
}

// FieldError is one field at fault in a ValidationError.
type FieldError struct {
	Loc  []string `json:"loc" jsonschema:"Where the field is, e.g. [\"body\", \"top_k\"]."`
	Msg  string   `json:"msg" jsonschema:"What is wrong, for a person."`
	Type string   `json:"type" jsonschema:"The kind of error, e.g. missing, value_error, type_error."`
}

// ErrorDetail is the body of every error other than a validation error.
type ErrorDetail struct {
	Detail string `json:"detail" jsonschema:"What went wrong."`
}
