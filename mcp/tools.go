package mcp

import (
	"context"
	"encoding/json"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"ragd"
	"ragd/auth"
	"ragd/rag"
	"ragd/websearch"
)

// tool is a core tool: its definition and how to register it bound to a
// preset (profiles reuse core tools with another name and namespace).
type tool struct {
	name        string
	description string
	annotations sdk.ToolAnnotations
	register    func(s *sdk.Server, t *sdk.Tool, p preset)
}

// preset is what a profile binds: a namespace and filters.
type preset struct {
	KBName string
	Filter *ScopeFilter
}

func yes() *bool { b := true; return &b }
func no() *bool  { b := false; return &b }

func (m *Server) coreTools() []tool {
	return []tool{
		{name: "core_ingest", annotations: sdk.ToolAnnotations{Title: "Index a document", OpenWorldHint: yes(), DestructiveHint: no(), IdempotentHint: true},
			description: "Index one document into the knowledge base: a file path inside the server's ingest roots, an http(s) URL, or inline text (source_type text). " +
				"Returns at once with a job_id and status \"queued\"; poll core_job_status(job_id) until status is completed or failed. " +
				"With wait:true it waits (sending progress notifications) and returns the final status, or the job_id and current status if the wait limit is reached. " +
				"Content already indexed unchanged is not indexed again: dedup_hit is true and job_id is empty.",
			register: func(s *sdk.Server, t *sdk.Tool, p preset) { sdk.AddTool(s, t, guarded(m.ingest(p))) }},
		{name: "core_ingest_directory", annotations: sdk.ToolAnnotations{Title: "Index a directory", DestructiveHint: no(), IdempotentHint: true, OpenWorldHint: no()},
			description: "Index every supported file (PDF, DOCX, HTML, Markdown, text) of a directory inside the server's ingest roots, one job per file. " +
				"Returns a job_id at once; core_job_status reports files done/total and each file's job. wait:true waits with progress notifications.",
			register: func(s *sdk.Server, t *sdk.Tool, p preset) { sdk.AddTool(s, t, guarded(m.ingestDirectory(p))) }},
		{name: "core_job_status", annotations: sdk.ToolAnnotations{Title: "Ingest job status", ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: no()},
			description: "The state of an ingest job: status (queued, active, retry, completed, failed), progress {done, total, unit}, result when completed, error when failed. Poll every few seconds until completed or failed.",
			register:    func(s *sdk.Server, t *sdk.Tool, p preset) { sdk.AddTool(s, t, guarded(m.jobStatus)) }},
		{name: "core_query", annotations: sdk.ToolAnnotations{Title: "Answer from the documents", ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: no()},
			description: "Answer a question from the indexed documents. The answer cites its sources as [n], meaning sources[n-1]; route says how it was made " +
				"(llm: by the configured model; extractive: the best-matching sentences; not_found: the documents do not contain the answer — do not guess then). " +
				"Use core_retrieve_text instead when you want the raw passages.",
			register: func(s *sdk.Server, t *sdk.Tool, p preset) { sdk.AddTool(s, t, guarded(m.query(p))) }},
		{name: "core_retrieve_text", annotations: sdk.ToolAnnotations{Title: "Retrieve passages", ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: no()},
			description: "Find the passages (chunks) of the indexed documents that best match a query, best first, each with its heading path and document. " +
				"Hybrid keyword + vector search by default; use specific words from the domain for best results.",
			register: func(s *sdk.Server, t *sdk.Tool, p preset) { sdk.AddTool(s, t, guarded(m.retrieveText(p))) }},
		{name: "core_retrieve_visual", annotations: sdk.ToolAnnotations{Title: "Retrieve images", ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: no()},
			description: "Find images from indexed PDF/DOCX files by their captions and nearby text. Returns an empty list with a note when no images are indexed.",
			register:    func(s *sdk.Server, t *sdk.Tool, p preset) { sdk.AddTool(s, t, guarded(m.retrieveVisual(p))) }},
		{name: "core_list_documents", annotations: sdk.ToolAnnotations{Title: "List documents", ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: no()},
			description: "List the documents indexed in a namespace, with their ids, sources, titles and chunk counts, one page at a time (100 by default), ordered by source. " +
				"total is how many the namespace holds; while next_offset is present, call again with offset=next_offset for the next page.",
			register: func(s *sdk.Server, t *sdk.Tool, p preset) { sdk.AddTool(s, t, guarded(m.listDocuments(p))) }},
		{name: "core_delete_document", annotations: sdk.ToolAnnotations{Title: "Delete a document", DestructiveHint: yes(), IdempotentHint: true, OpenWorldHint: no()},
			description: "Delete a document and all its chunks from the knowledge base. This cannot be undone.",
			register:    func(s *sdk.Server, t *sdk.Tool, p preset) { sdk.AddTool(s, t, guarded(m.deleteDocument(p))) }},
		{name: "core_stats", annotations: sdk.ToolAnnotations{Title: "Knowledge base statistics", ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: no()},
			description: "Documents and chunks per namespace, the embedder, and the ingest queue's pending/active/failed jobs.",
			register:    func(s *sdk.Server, t *sdk.Tool, p preset) { sdk.AddTool(s, t, guarded(m.stats)) }},
	}
}

// searchWebTool is core_search_web, offered when a provider is configured.
func (m *Server) searchWebTool() tool {
	return tool{name: "core_search_web", annotations: sdk.ToolAnnotations{Title: "Search the web", ReadOnlyHint: true, OpenWorldHint: yes()},
		description: "Search the public web (not the indexed documents). Use it for recent or public information; returns title, link and snippet per result.",
		register:    func(s *sdk.Server, t *sdk.Tool, _ preset) { sdk.AddTool(s, t, guarded(m.searchWeb)) }}
}

func (m *Server) searchWeb(ctx context.Context, _ *sdk.CallToolRequest, in SearchWebInput) (*sdk.CallToolResult, SearchWebOutput, error) {
	max := in.MaxResults
	if max == 0 {
		max = websearch.DefaultMaxResults
	}
	results, err := m.cfg.Web.Search(ctx, in.Query, max)
	if err != nil {
		return nil, SearchWebOutput{}, toolError(err)
	}
	if results == nil {
		results = []websearch.Result{}
	}
	return nil, SearchWebOutput{Results: results, Count: len(results)}, nil
}

func (m *Server) ingest(p preset) sdk.ToolHandlerFor[IngestInput, IngestOutput] {
	return func(ctx context.Context, req *sdk.CallToolRequest, in IngestInput) (*sdk.CallToolResult, IngestOutput, error) {
		r := rag.IndexRequest{KBName: p.kb(in.KBName), Force: in.Force, Tags: in.Tags}
		switch typ := strings.ToLower(in.SourceType); {
		case typ == "text":
			r.Text = in.SourceURI
		case typ == "url" || strings.HasPrefix(in.SourceURI, "http://") || strings.HasPrefix(in.SourceURI, "https://"):
			r.URL = in.SourceURI
		default:
			r.FilePath = strings.TrimPrefix(in.SourceURI, "file://")
		}
		enq, err := m.svc.Index(ctx, r)
		if err != nil {
			return nil, IngestOutput{}, toolError(err)
		}
		out := IngestOutput{Status: string(enq.Status), DocumentID: enq.DocumentID, DedupHit: enq.DedupHit}
		if enq.JobID == nil {
			return nil, out, nil
		}
		out.JobID = *enq.JobID
		if in.Wait {
			m.waitInto(ctx, req, &out)
		}
		return nil, out, nil
	}
}

func (m *Server) ingestDirectory(p preset) sdk.ToolHandlerFor[DirectoryInput, IngestOutput] {
	return func(ctx context.Context, req *sdk.CallToolRequest, in DirectoryInput) (*sdk.CallToolResult, IngestOutput, error) {
		enq, err := m.svc.IndexDirectory(ctx, rag.DirectoryRequest{DirectoryPath: in.DirectoryPath, Recursive: in.Recursive,
			KBName: p.kb(in.KBName), Tags: in.Tags, Force: in.Force})
		if err != nil {
			return nil, IngestOutput{}, toolError(err)
		}
		out := IngestOutput{JobID: *enq.JobID, Status: string(enq.Status)}
		if in.Wait {
			m.waitInto(ctx, req, &out)
		}
		return nil, out, nil
	}
}

func (m *Server) jobStatus(ctx context.Context, _ *sdk.CallToolRequest, in JobInput) (*sdk.CallToolResult, JobOutput, error) {
	job, err := m.svc.Job(ctx, in.JobID)
	if err != nil {
		return nil, JobOutput{}, toolError(err)
	}
	return nil, jobOutput(job), nil
}

func jobOutput(job *ragd.Job) JobOutput {
	out := JobOutput{JobID: job.ID, Type: job.Type, Status: string(job.Status), Progress: job.Progress, Error: job.Error, Children: job.Children}
	if len(job.Result) > 0 {
		_ = json.Unmarshal(job.Result, &out.Result)
	}
	return out
}

func (m *Server) query(p preset) sdk.ToolHandlerFor[QueryInput, QueryOutput] {
	return func(ctx context.Context, _ *sdk.CallToolRequest, in QueryInput) (*sdk.CallToolResult, QueryOutput, error) {
		resp, err := m.svc.Query(ctx, rag.QueryRequest{RetrieveRequest: p.retrieve(in.Query, in.Mode, in.KBName, in.Scope, in.ScopeFilter, in.TopK)}, nil)
		if err != nil {
			return nil, QueryOutput{}, toolError(err)
		}
		return nil, QueryOutput{Answer: resp.Answer, Sources: resp.Sources, Route: resp.Route, Steps: resp.Steps}, nil
	}
}

func (m *Server) retrieveText(p preset) sdk.ToolHandlerFor[RetrieveInput, RetrieveTextOutput] {
	return func(ctx context.Context, _ *sdk.CallToolRequest, in RetrieveInput) (*sdk.CallToolResult, RetrieveTextOutput, error) {
		resp, err := m.svc.Search(ctx, p.retrieve(in.Query, in.Mode, in.KBName, in.Scope, in.ScopeFilter, in.TopK))
		if err != nil {
			return nil, RetrieveTextOutput{}, toolError(err)
		}
		out := RetrieveTextOutput{Results: make([]TextNode, len(resp.Results)), Count: resp.Count}
		for i, r := range resp.Results {
			out.Results[i] = TextNode{NodeID: r.ID, Text: r.Text, Score: r.Score, Metadata: NodeMetadata{Path: r.Path, Level: r.Level,
				Summary: r.Summary, DocumentID: r.DocumentID, SourceType: string(r.SourceType), Source: r.Source, Page: r.Page, KBName: r.KBName}}
		}
		return nil, out, nil
	}
}

// retrieveVisual finds images extracted from PDF/DOCX files at ingest, by
// caption and nearby text.
func (m *Server) retrieveVisual(p preset) sdk.ToolHandlerFor[RetrieveInput, RetrieveVisualOutput] {
	return func(ctx context.Context, _ *sdk.CallToolRequest, in RetrieveInput) (*sdk.CallToolResult, RetrieveVisualOutput, error) {
		found, err := m.svc.RetrieveImages(ctx, p.retrieve(in.Query, "", in.KBName, in.Scope, in.ScopeFilter, in.TopK))
		if err != nil {
			return nil, RetrieveVisualOutput{}, toolError(err)
		}
		out := RetrieveVisualOutput{Results: make([]VisualNode, len(found)), Count: len(found)}
		for i, f := range found {
			out.Results[i] = VisualNode{ImageID: f.ImageID, DocumentID: f.DocumentID, Page: f.Page, Position: f.Position,
				Score: f.Score, Caption: f.Caption, Source: f.Source, Format: f.Format}
		}
		if len(found) == 0 {
			out.Note = "no matching images; images are indexed from PDF and DOCX files that have captions or text around their pictures, and none may be indexed here"
		}
		return nil, out, nil
	}
}

func (m *Server) listDocuments(p preset) sdk.ToolHandlerFor[ListInput, ListOutput] {
	return func(ctx context.Context, _ *sdk.CallToolRequest, in ListInput) (*sdk.CallToolResult, ListOutput, error) {
		list, err := m.svc.ListDocuments(ctx, rag.ListRequest{KBName: p.kb(in.KBName), Limit: in.Limit, Offset: in.Offset})
		if err != nil {
			return nil, ListOutput{}, toolError(err)
		}
		return nil, ListOutput(list), nil // the same fields, with the descriptions agents read
	}
}

func (m *Server) deleteDocument(p preset) sdk.ToolHandlerFor[DeleteInput, rag.Deleted] {
	return func(ctx context.Context, _ *sdk.CallToolRequest, in DeleteInput) (*sdk.CallToolResult, rag.Deleted, error) {
		res, err := m.svc.DeleteDocument(ctx, p.kb(in.KBName), in.DocumentID)
		if err != nil {
			return nil, rag.Deleted{}, toolError(err)
		}
		return nil, res, nil
	}
}

func (m *Server) stats(ctx context.Context, _ *sdk.CallToolRequest, _ StatsInput) (*sdk.CallToolResult, rag.Statistics, error) {
	res, err := m.svc.Stats(ctx)
	if err != nil {
		return nil, rag.Statistics{}, toolError(err)
	}
	return nil, res.Statistics, nil
}

// guarded gives the handler the caller's principal (which the HTTP auth
// middleware put in the request's token info), so the service can check
// namespace access whichever transport the call came by.
func guarded[In, Out any](h sdk.ToolHandlerFor[In, Out]) sdk.ToolHandlerFor[In, Out] {
	return func(ctx context.Context, req *sdk.CallToolRequest, in In) (*sdk.CallToolResult, Out, error) {
		if req != nil && req.Extra != nil {
			if p := auth.FromTokenInfo(req.Extra.TokenInfo); p != nil {
				ctx = auth.WithPrincipal(ctx, p)
			}
		}
		return h(ctx, req, in)
	}
}

// kb is the namespace a call uses: the profile's, else the caller's.
func (p preset) kb(given string) string {
	if p.KBName != "" {
		return p.KBName
	}
	return given
}

func (p preset) retrieve(query, mode, kb string, scope []string, f *ScopeFilter, topK int) rag.RetrieveRequest {
	r := rag.RetrieveRequest{Query: query, Mode: mode, KBName: p.kb(kb), Scope: scope}
	if topK != 0 {
		r.TopK = &topK
	}
	if f == nil {
		f = p.Filter
	}
	if f != nil {
		r.ScopeFilter = &rag.ScopeFilter{KBNames: f.KBNames, Tags: f.Tags, DocumentIDs: f.DocumentIDs, SourceTypes: f.SourceTypes}
	}
	if p.KBName != "" && r.ScopeFilter != nil {
		r.ScopeFilter.KBNames = nil // a profile's namespace is fixed
	}
	return r
}
