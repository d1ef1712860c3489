// Package openapi builds an OpenAPI 3.0.3 document from Go types by
// reflection and serves offline documentation UIs for it.
//
// Schemas follow encoding/json: a field's name, omission and flattening are
// those json.Marshal gives it, so the document describes what the server
// really sends. Optional struct tags refine a field's schema:
//
//	jsonschema:"text"  description (the tag the MCP SDK reads too)
//	enum:"a,b,c"       allowed values, typed like the field
//	minimum:"1"        inclusive lower bound
//	maximum:"20"       inclusive upper bound
//	default:"5"        default value, typed like the field
//
// Named struct types become components/schemas entries referenced by $ref.
package openapi
