package mcpserver

import (
	"context"
	"strconv"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"ragd"
	"ragd/internal/library"
)

// The resource templates: every document, and every chunk so that an agent
// can open a cited source (core_retrieve_text's node_id, core_query's
// sources[].chunk_id).
const (
	documentTemplate = "ragd://{kb_name}/documents/{document_id}"
	chunkTemplate    = "ragd://{kb_name}/chunks/{chunk_id}"
	resourceScheme   = "ragd://"
	markdownMIME     = "text/markdown"
)

// ResourcePageSize is how many documents one resources/list page holds.
const ResourcePageSize = library.DefaultListLimit

// MaxResourceTextBytes bounds a document resource's text; a longer one is
// cut at a chunk's end and says so.
const MaxResourceTextBytes = 8 << 20

func (m *Server) addResources() {
	m.server.AddResourceTemplate(&sdk.ResourceTemplate{URITemplate: documentTemplate, Name: "document", Title: "Indexed document",
		Description: "The full text of an indexed document as markdown, its headings rebuilt, opened by a front-matter block " +
			"with its title, source, source_type and tags. resources/list lists every document you may read.",
		MIMEType: markdownMIME}, m.readResource)
	m.server.AddResourceTemplate(&sdk.ResourceTemplate{URITemplate: chunkTemplate, Name: "chunk", Title: "Passage (chunk)",
		Description: "One passage of an indexed document, with its heading path: open a cited source by its chunk id " +
			"(core_retrieve_text's node_id, core_query's sources[].chunk_id).",
		MIMEType: markdownMIME}, m.readResource)
	m.server.AddReceivingMiddleware(m.listResourcesMiddleware)
}

// resourceURI splits ragd://{kb_name}/{kind}/{id}.
func resourceURI(uri string) (kb, kind, id string, ok bool) {
	rest, found := strings.CutPrefix(uri, resourceScheme)
	parts := strings.Split(rest, "/")
	if !found || len(parts) != 3 || !ragd.ValidNamespace(parts[0]) || parts[2] == "" {
		return "", "", "", false
	}
	return parts[0], parts[1], parts[2], true
}

func documentURI(kb, id string) string { return resourceScheme + kb + "/documents/" + id }

func chunkURI(kb, id string) string { return resourceScheme + kb + "/chunks/" + id }

// readResource reads a document or a chunk. Whatever the caller may not
// read — another key's namespace, a deleted document, an id that never
// was — is the same "Resource not found", so a resource's existence in
// another namespace is never revealed.
func (m *Server) readResource(ctx context.Context, req *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
	uri := req.Params.URI
	kb, kind, id, ok := resourceURI(uri)
	if !ok {
		return nil, sdk.ResourceNotFoundError(uri)
	}
	ctx = callerContext(ctx, req.Extra)
	var contents *sdk.ResourceContents
	var err error
	switch kind {
	case "documents":
		contents, err = m.readDocument(ctx, kb, id)
	case "chunks":
		contents, err = m.readChunk(ctx, kb, id)
	default:
		return nil, sdk.ResourceNotFoundError(uri)
	}
	if err != nil {
		switch ragd.KindOf(err) {
		case ragd.KindNotFound, ragd.KindForbidden, ragd.KindInvalid:
			return nil, sdk.ResourceNotFoundError(uri)
		}
		return nil, requestError(m.log, "resources/read", err)
	}
	contents.URI, contents.MIMEType = uri, markdownMIME
	// Private: what a caller may read depends on its key.
	return &sdk.ReadResourceResult{Contents: []*sdk.ResourceContents{contents}, Cacheable: sdk.Cacheable{CacheScope: "private"}}, nil
}

func (m *Server) readDocument(ctx context.Context, kb, id string) (*sdk.ResourceContents, error) {
	t, err := m.svc.Library.DocumentText(ctx, kb, id, MaxResourceTextBytes)
	if err != nil {
		return nil, err
	}
	text := library.FrontMatter(t.Document) + t.Markdown
	if t.Truncated {
		text += "\n> [ragd: the text stops here: the document is longer than " + strconv.Itoa(MaxResourceTextBytes) +
			" bytes; search it with core_retrieve_text (scope: its document_id) for the rest]\n"
	}
	meta := documentMeta(t.Document)
	meta["truncated"] = t.Truncated
	return &sdk.ResourceContents{Text: text, Meta: meta}, nil
}

func (m *Server) readChunk(ctx context.Context, kb, id string) (*sdk.ResourceContents, error) {
	c, err := m.svc.Library.Chunk(ctx, kb, id)
	if err != nil {
		return nil, err
	}
	var b strings.Builder
	b.WriteString(library.ChunkFrontMatter(c))
	if c.Chunk.Path != "" {
		b.WriteString("> " + c.Chunk.Path + "\n\n")
	}
	b.WriteString(c.Chunk.Text + "\n")
	meta := sdk.Meta{"chunk_id": c.Chunk.ID, "document_id": c.Document.ID, "kb_name": c.Document.Namespace, "path": c.Chunk.Path,
		"level": c.Chunk.Level, "chunk_index": c.Chunk.Index, "source": c.Document.Source, "title": c.Document.Title,
		"document_uri": documentURI(c.Document.Namespace, c.Document.ID)}
	if c.Chunk.Page > 0 {
		meta["page"] = c.Chunk.Page
	}
	return &sdk.ResourceContents{Text: b.String(), Meta: meta}, nil
}

func documentMeta(d ragd.Document) sdk.Meta {
	tags := d.Tags
	if tags == nil {
		tags = []string{}
	}
	return sdk.Meta{"kb_name": d.Namespace, "document_id": d.ID, "title": d.Title, "source": d.Source,
		"source_type": string(d.SourceType), "tags": tags, "chunks": d.Chunks}
}

// listResourcesMiddleware answers resources/list itself: the SDK lists the
// resources registered one by one, while ragd's are the documents of every
// namespace the caller may read, ResourcePageSize per page, under the
// protocol's cursor (nextCursor until the last page).
func (m *Server) listResourcesMiddleware(next sdk.MethodHandler) sdk.MethodHandler {
	return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
		lr, ok := req.(*sdk.ListResourcesRequest)
		if method != "resources/list" || !ok {
			return next(ctx, method, req)
		}
		cursor := ""
		if lr.Params != nil {
			cursor = lr.Params.Cursor
		}
		page, err := m.svc.Library.BrowseDocuments(callerContext(ctx, lr.Extra), cursor, ResourcePageSize)
		if err != nil {
			if ragd.KindOf(err) == ragd.KindInvalid {
				return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "invalid cursor"}
			}
			return nil, requestError(m.log, method, err)
		}
		res := &sdk.ListResourcesResult{Resources: make([]*sdk.Resource, len(page.Documents)), NextCursor: page.Next,
			Cacheable: sdk.Cacheable{CacheScope: "private"}}
		for i, d := range page.Documents {
			res.Resources[i] = documentResource(d)
		}
		return res, nil
	}
}

func documentResource(d ragd.Document) *sdk.Resource {
	title := d.Title
	if title == "" {
		title = d.Source
	}
	r := &sdk.Resource{URI: documentURI(d.Namespace, d.ID), Name: d.ID, Title: title, MIMEType: markdownMIME,
		Description: d.Source + " (" + string(d.SourceType) + ", " + strconv.Itoa(d.Chunks) + " chunks, namespace " + d.Namespace + ")",
		Meta:        documentMeta(d)}
	if !d.UpdatedAt.IsZero() {
		r.Annotations = &sdk.Annotations{LastModified: d.UpdatedAt.UTC().Format(time.RFC3339)}
	}
	return r
}
