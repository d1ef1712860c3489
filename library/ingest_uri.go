package library

import (
	"strings"
)

// IngestRequest is core_ingest's input: one source named by a URI, as
// agents name it, rather than by REST's separate fields.
type IngestRequest struct {
	SourceURI  string   `json:"source_uri" jsonschema:"what to index: a file path inside the server's ingest roots, an http(s) URL, or (with source_type text) the text itself"`
	SourceType string   `json:"source_type,omitempty" jsonschema:"file, url or text; inferred from source_uri when omitted"`
	KBName     string   `json:"kb_name,omitempty" jsonschema:"namespace to index into (default: default)"`
	Wait       bool     `json:"wait,omitempty" jsonschema:"wait for the job to finish (up to the server's wait limit, with progress notifications) instead of returning at once"`
	Force      bool     `json:"force,omitempty" jsonschema:"re-index even if the same content is already indexed"`
	Tags       []string `json:"tags,omitempty" jsonschema:"labels to filter searches by later"`
}

// IndexRequest is the request r names: inline text with source_type text,
// a URL for source_type url or an http(s) URI, else a file path (a
// file:// prefix dropped). Index validates the rest.
func (r IngestRequest) IndexRequest() IndexRequest {
	req := IndexRequest{KBName: r.KBName, Force: r.Force, Tags: r.Tags}
	switch typ := strings.ToLower(r.SourceType); {
	case typ == "text":
		req.Text = r.SourceURI
	case typ == "url" || strings.HasPrefix(r.SourceURI, "http://") || strings.HasPrefix(r.SourceURI, "https://"):
		req.URL = r.SourceURI
	default:
		req.FilePath = strings.TrimPrefix(r.SourceURI, "file://")
	}
	return req
}
