package library

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"math"
	"strings"

	"ragd"
	"ragd/internal/authn"
)

// IngestRequest is core_ingest's input: one source named by a URI, as
// agents name it, rather than by REST's separate fields — or, for agents not
// on the server's disk, the content itself.
type IngestRequest struct {
	SourceURI     string   `json:"source_uri,omitempty" jsonschema:"what to index: a file path inside the server's ingest roots, an http(s) URL, or (with source_type text) the text itself. Give exactly one of source_uri, content and content_base64"`
	SourceType    string   `json:"source_type,omitempty" jsonschema:"file, url or text; inferred from source_uri when omitted"`
	Content       string   `json:"content,omitempty" jsonschema:"text to index, instead of source_uri: for agents whose files are not on the server's disk. With filename, it is indexed as that file (e.g. notes.md as Markdown)"`
	ContentBase64 string   `json:"content_base64,omitempty" jsonschema:"a file's bytes, base64-encoded (standard alphabet), instead of source_uri; needs filename. At most the server's ingest.max_file_bytes once decoded"`
	Filename      string   `json:"filename,omitempty" jsonschema:"the name of the file given as content_base64 (or content): its extension (.pdf, .docx, .html, .md, .txt) picks the parser, and the document is upload://<kb_name>/<filename>, so sending the same name again replaces that document"`
	KBName        string   `json:"kb_name,omitempty" jsonschema:"namespace to index into (default: default)"`
	Wait          bool     `json:"wait,omitempty" jsonschema:"wait for the job to finish (up to the server's wait limit, with progress notifications) instead of returning at once"`
	Force         bool     `json:"force,omitempty" jsonschema:"re-index even if the same content is already indexed"`
	Tags          []string `json:"tags,omitempty" jsonschema:"labels to filter searches by later"`
	Access        []string `json:"access,omitempty" jsonschema:"groups to share the document with, at most 100 names of up to 128 characters (absent: the document keeps its access, a new one is open; []: everyone who may use the namespace)"`
}

// IndexRequest is the request r names: inline text with source_type text
// or as content, a URL for source_type url or an http(s) URI (its scheme
// in any case, as ragd.ParseSourceURI reads one), else a file path (a
// file:// source's path, or source_uri as given). Index validates the rest.
func (r IngestRequest) IndexRequest() IndexRequest {
	req := IndexRequest{KBName: r.KBName, Force: r.Force, Tags: r.Tags, Access: r.Access}
	u, _ := ragd.ParseSourceURI(r.SourceURI) // file and http(s) URIs parse without error
	switch typ := strings.ToLower(r.SourceType); {
	case r.Content != "":
		req.Text = r.Content
	case typ == "text":
		req.Text = r.SourceURI
	case typ == "url" || u.Scheme == ragd.SchemeHTTP || u.Scheme == ragd.SchemeHTTPS:
		req.URL = r.SourceURI
	case u.Scheme == ragd.SchemeFile:
		req.FilePath = u.Path
	default:
		req.FilePath = r.SourceURI
	}
	return req
}

// Ingest answers core_ingest: a source_uri or text content goes through
// Index, bytes (content_base64, or content with a filename) through the
// same upload path as POST /documents.
func (s *Service) Ingest(ctx context.Context, r IngestRequest) (Enqueued, error) {
	switch n := countSet(r.SourceURI, r.Content, r.ContentBase64); {
	case n == 0:
		return Enqueued{}, ragd.Invalid("source_uri", "missing", "one of source_uri, content or content_base64 is required")
	case n > 1:
		return Enqueued{}, ragd.Invalid("source_uri", "value_error", "give only one of source_uri, content or content_base64")
	case r.SourceURI != "" && r.Filename != "":
		return Enqueued{}, ragd.Invalid("filename", "value_error", "filename goes with content or content_base64, not source_uri")
	case r.ContentBase64 == "" && r.Filename == "":
		return s.Index(ctx, r.IndexRequest())
	case r.Filename == "":
		return Enqueued{}, ragd.Invalid("filename", "missing", "content_base64 needs a filename (its extension picks the parser)")
	}
	// Refused namespaces and oversized content cost no decoding.
	if _, err := authn.Namespace(ctx, r.KBName); err != nil {
		return Enqueued{}, err
	}
	data := []byte(r.Content)
	if r.ContentBase64 != "" {
		var err error
		if data, err = s.decodeBase64(r.ContentBase64); err != nil {
			return Enqueued{}, err
		}
	}
	return s.uploadOne(ctx, r, data)
}

// decodeBase64 decodes content_base64 (padded or not; line breaks
// ignored), refusing content over the file limit before decoding it.
func (s *Service) decodeBase64(text string) ([]byte, error) {
	text = strings.TrimRight(strings.NewReplacer("\r", "", "\n", "").Replace(text), "=")
	if limit := s.maxFileBytes(); int64(base64.RawStdEncoding.DecodedLen(len(text))) > limit {
		return nil, &ragd.Error{Kind: ragd.KindTooLarge, Message: fmt.Sprintf("content_base64 decodes to more than ingest.max_file_bytes (%d bytes)", limit)}
	}
	data, err := base64.RawStdEncoding.DecodeString(text)
	if err != nil {
		return nil, ragd.Invalid("content_base64", "value_error", "content_base64 is not valid base64 (standard alphabet): %v", err)
	}
	return data, nil
}

// maxFileBytes is the uploads' file limit; without uploads the spool
// refuses anyway.
func (s *Service) maxFileBytes() int64 {
	if s.Uploads == nil {
		return math.MaxInt64
	}
	return s.Uploads.MaxFileBytes
}

// uploadOne uploads one file's bytes and answers as Index does.
func (s *Service) uploadOne(ctx context.Context, r IngestRequest, data []byte) (Enqueued, error) {
	sp := s.NewSpool()
	defer sp.Close()
	if err := sp.Add(r.Filename, bytes.NewReader(data)); err != nil {
		return Enqueued{}, Relabel(err, "file", "filename")
	}
	up, err := s.Upload(ctx, UploadRequest{KBName: r.KBName, Tags: r.Tags, Access: r.Access, Force: r.Force, Files: sp})
	if err != nil {
		return Enqueued{}, err
	}
	j := up.Jobs[0]
	enq := Enqueued{JobID: j.JobID, Status: j.Status, DocumentID: j.DocumentID, DedupHit: j.DedupHit, Source: j.Source}
	return enq, nil
}
