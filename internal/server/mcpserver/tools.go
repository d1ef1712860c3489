package mcpserver

import (
	"context"
	"encoding/json"
	"errors"

	"ragd/wire"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"ragd"
	"ragd/internal/adapter/websearch"
	"ragd/internal/authn"
	"ragd/internal/library"
	"ragd/internal/retrieval/answer"
	"ragd/internal/retrieval/search"
)

// tool is a core tool: its definition and how to register it bound to a
// preset (profiles reuse core tools with another name and namespace).
type tool struct {
	name        string
	description string
	annotations sdk.ToolAnnotations
	register    func(s toolSet, t *sdk.Tool, p preset)
	// tasks: a call may run as an MCP task (tasks.go), its task the job.
	tasks bool
}

// preset is what a profile binds: a namespace and filters.
type preset struct {
	KBName string
	Filter *search.ScopeFilter
}

func yes() *bool { b := true; return &b }
func no() *bool  { b := false; return &b }

func (m *Server) coreTools() []tool {
	return []tool{
		{name: "core_ingest", annotations: sdk.ToolAnnotations{Title: "Index a document", OpenWorldHint: yes(), DestructiveHint: no(), IdempotentHint: true},
			description: "Index one document into the knowledge base: a file path inside the server's ingest roots, an http(s) URL, or inline text (source_type text). " +
				"For files not on the server's disk, send the text as content, or the file's bytes as content_base64 with its filename (the same limits as an upload). " +
				"Returns at once with a job_id and status \"queued\"; poll core_job_status(job_id) until status is completed, failed or cancelled. " +
				"With wait:true it waits (sending progress notifications) and returns the final status, or the job_id and current status if the wait limit is reached. " +
				"Content already indexed unchanged is not indexed again: dedup_hit is true and job_id is empty.",
			register: func(s toolSet, t *sdk.Tool, p preset) { addTool(s, t, guarded(m, m.ingest(p))) }, tasks: true},
		{name: "core_ingest_directory", annotations: sdk.ToolAnnotations{Title: "Index a directory", DestructiveHint: no(), IdempotentHint: true, OpenWorldHint: no()},
			description: "Index every supported file (PDF, DOCX, HTML, Markdown, text) of a directory inside the server's ingest roots, one job per file. " +
				"Returns a job_id at once; core_job_status reports files done/total and each file's job. wait:true waits with progress notifications.",
			register: func(s toolSet, t *sdk.Tool, p preset) { addTool(s, t, guarded(m, m.ingestDirectory(p))) }, tasks: true},
		{name: "core_job_status", annotations: sdk.ToolAnnotations{Title: "Ingest job status", ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: no()},
			description: "The state of an ingest job: status (queued, active, retry, completed, failed, cancelled), progress {done, total, unit}, result when completed, error when failed. Poll every few seconds until completed, failed or cancelled.",
			register:    func(s toolSet, t *sdk.Tool, p preset) { addTool(s, t, guarded(m, m.jobStatus)) }},
		{name: "core_list_jobs", annotations: sdk.ToolAnnotations{Title: "List ingest jobs", ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: no()},
			description: "List ingest jobs, newest first, one page at a time (100 by default), optionally only one namespace's or only those in one status " +
				"(queued, active, retry, completed, failed, cancelled). A directory job is one entry; core_job_status lists its files. " +
				"total is how many match; while next_offset is present, call again with offset=next_offset for the next page.",
			register: func(s toolSet, t *sdk.Tool, p preset) {
				t.OutputSchema = jobListSchema
				addTool(s, t, guarded(m, m.listJobs(p)))
			}},
		{name: "core_cancel_job", annotations: sdk.ToolAnnotations{Title: "Cancel an ingest job", DestructiveHint: yes(), IdempotentHint: true, OpenWorldHint: no()},
			description: "Cancel an ingest job that has not ended: a queued one never runs, a running one stops, a directory job stops and cancels its unfinished files. " +
				"A cancelled document keeps its previous version. Fails for a job already completed, failed or cancelled.",
			register: func(s toolSet, t *sdk.Tool, p preset) { addTool(s, t, guarded(m, m.cancelJob)) }},
		{name: "core_query", annotations: sdk.ToolAnnotations{Title: "Answer from the documents", ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: no()},
			description: "Answer a question from the indexed documents. The answer cites its sources as [n], meaning sources[n-1]; route says how it was made " +
				"(llm: by the configured model; sampling: by your own model, asked through sampling/createMessage when the server has none; " +
				"extractive: the best-matching sentences; not_found: the documents do not contain the answer — do not guess then). " +
				"Use core_retrieve_text instead when you want the raw passages. " + phrasingsHint,
			register: func(s toolSet, t *sdk.Tool, p preset) { addTool(s, t, guarded(m, m.query(p))) }},
		{name: "core_retrieve_text", annotations: sdk.ToolAnnotations{Title: "Retrieve passages", ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: no()},
			description: "Find the passages (chunks) of the indexed documents that best match a query, best first, each with its heading path and document. " +
				"Hybrid keyword + vector search by default; use specific words from the domain for best results. " + phrasingsHint,
			register: func(s toolSet, t *sdk.Tool, p preset) { addTool(s, t, guarded(m, m.retrieveText(p))) }},
		{name: "core_retrieve_visual", annotations: sdk.ToolAnnotations{Title: "Retrieve images", ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: no()},
			description: "Find images from indexed PDF/DOCX files by their captions and nearby text. Returns an empty list with a note when no images are indexed.",
			register:    func(s toolSet, t *sdk.Tool, p preset) { addTool(s, t, guarded(m, m.retrieveVisual(p))) }},
		{name: "core_list_documents", annotations: sdk.ToolAnnotations{Title: "List documents", ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: no()},
			description: "List the documents indexed in a namespace, with their ids, sources, titles and chunk counts, one page at a time (100 by default), ordered by source. " +
				"total is how many the namespace holds; while next_offset is present, call again with offset=next_offset for the next page.",
			register: func(s toolSet, t *sdk.Tool, p preset) { addTool(s, t, guarded(m, m.listDocuments(p))) }},
		{name: "core_delete_document", annotations: sdk.ToolAnnotations{Title: "Delete a document", DestructiveHint: yes(), IdempotentHint: true, OpenWorldHint: no()},
			description: "Delete a document and all its chunks from the knowledge base. This cannot be undone.",
			register:    func(s toolSet, t *sdk.Tool, p preset) { addTool(s, t, guarded(m, m.deleteDocument(p))) }},
		{name: "core_stats", annotations: sdk.ToolAnnotations{Title: "Knowledge base statistics", ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: no()},
			description: "Documents and chunks per namespace, the embedder, and the ingest queue's pending/active/failed jobs.",
			register:    func(s toolSet, t *sdk.Tool, p preset) { addTool(s, t, guarded(m, m.stats)) }},
	}
}

// phrasingsHint tells agents about queries: one wording misses passages
// that use other words for the same thing.
const phrasingsHint = "Pass 2-3 other phrasings of the question in queries (up to 5), written in the documents' own vocabulary " +
	"(the terms, names and jargon a passage that answers it would use): each is searched too and the results are fused, " +
	"which finds passages a single wording misses."

// searchWebTool is core_search_web, offered when a provider is configured.
func (m *Server) searchWebTool() tool {
	return tool{name: "core_search_web", annotations: sdk.ToolAnnotations{Title: "Search the web", ReadOnlyHint: true, OpenWorldHint: yes()},
		description: "Search the public web (not the indexed documents). Use it for recent or public information; returns title, link and snippet per result.",
		register:    func(s toolSet, t *sdk.Tool, _ preset) { addTool(s, t, guarded(m, m.searchWeb)) }}
}

func (m *Server) searchWeb(ctx context.Context, _ *sdk.CallToolRequest, in SearchWebInput) (*sdk.CallToolResult, SearchWebOutput, error) {
	max := in.MaxResults
	if max == 0 {
		max = websearch.DefaultMaxResults
	}
	results, err := m.cfg.Web.Search(ctx, in.Query, max)
	if err != nil {
		return nil, SearchWebOutput{}, err
	}
	if results == nil {
		results = []websearch.Result{}
	}
	return nil, SearchWebOutput{Results: results, Count: len(results)}, nil
}

func (m *Server) ingest(p preset) sdk.ToolHandlerFor[library.IngestRequest, IngestOutput] {
	return func(ctx context.Context, req *sdk.CallToolRequest, in library.IngestRequest) (*sdk.CallToolResult, IngestOutput, error) {
		in.KBName = p.kb(in.KBName)
		enq, err := m.svc.Library.Ingest(ctx, in)
		if err != nil {
			return nil, IngestOutput{}, err
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

func (m *Server) ingestDirectory(p preset) sdk.ToolHandlerFor[library.DirectoryRequest, IngestOutput] {
	return func(ctx context.Context, req *sdk.CallToolRequest, in library.DirectoryRequest) (*sdk.CallToolResult, IngestOutput, error) {
		in.KBName = p.kb(in.KBName)
		if in.DryRun {
			plan, err := m.svc.Library.PlanDirectory(ctx, in)
			if err != nil {
				return nil, IngestOutput{}, err
			}
			return nil, IngestOutput{Status: "planned", Plan: &plan}, nil
		}
		enq, err := m.svc.Library.IndexDirectory(ctx, in)
		if err != nil {
			return nil, IngestOutput{}, err
		}
		out := IngestOutput{JobID: *enq.JobID, Status: string(enq.Status)}
		if in.Wait {
			m.waitInto(ctx, req, &out)
		}
		return nil, out, nil
	}
}

func (m *Server) jobStatus(ctx context.Context, _ *sdk.CallToolRequest, in JobInput) (*sdk.CallToolResult, JobOutput, error) {
	job, err := m.svc.Library.JobPage(ctx, in.JobID, in.Limit, in.Offset)
	if err != nil {
		return nil, JobOutput{}, err
	}
	return nil, jobOutput(job), nil
}

func (m *Server) listJobs(p preset) sdk.ToolHandlerFor[library.JobListRequest, library.JobList] {
	return func(ctx context.Context, _ *sdk.CallToolRequest, in library.JobListRequest) (*sdk.CallToolResult, library.JobList, error) {
		in.KBName = p.kb(in.KBName)
		list, err := m.svc.Library.ListJobs(ctx, in)
		if err != nil {
			return nil, library.JobList{}, err
		}
		return nil, list, nil
	}
}

func (m *Server) cancelJob(ctx context.Context, _ *sdk.CallToolRequest, in library.CancelRequest) (*sdk.CallToolResult, library.CancelledJob, error) {
	res, err := m.svc.Library.CancelJob(ctx, in)
	if err != nil {
		return nil, library.CancelledJob{}, err
	}
	return nil, res, nil
}

func jobOutput(job *ragd.Job) JobOutput {
	out := JobOutput{JobID: job.ID, Type: job.Type, Status: string(job.Status), Progress: job.Progress, Error: job.Error, Children: job.Children,
		ChildrenNextOffset: job.ChildrenNextOffset}
	if len(job.Result) > 0 {
		_ = json.Unmarshal(job.Result, &out.Result)
	}
	return out
}

func (m *Server) query(p preset) sdk.ToolHandlerFor[search.RetrieveRequest, QueryOutput] {
	return func(ctx context.Context, req *sdk.CallToolRequest, in search.RetrieveRequest) (*sdk.CallToolResult, QueryOutput, error) {
		qr := answer.QueryRequest{QueryRequest: wire.QueryRequest{RetrieveRequest: p.retrieve(in)}}
		s := m.samplerFor(req)
		if s != nil {
			qr.Model = s // the client's model writes the answer when ragd has none
		}
		resp, err := m.svc.Answer.Query(ctx, qr, nil)
		if s != nil && s.pending != nil && errors.Is(err, answer.ErrDeferred) {
			return s.inputRequired(), QueryOutput{}, nil
		}
		if err != nil {
			return nil, QueryOutput{}, err
		}
		return nil, QueryOutput{Answer: resp.Answer, Sources: resp.Sources, Route: resp.Route, Steps: resp.Steps, Fallback: resp.Fallback}, nil
	}
}

func (m *Server) retrieveText(p preset) sdk.ToolHandlerFor[search.RetrieveRequest, RetrieveTextOutput] {
	return func(ctx context.Context, _ *sdk.CallToolRequest, in search.RetrieveRequest) (*sdk.CallToolResult, RetrieveTextOutput, error) {
		resp, err := m.svc.Search.Search(ctx, p.retrieve(in))
		if err != nil {
			return nil, RetrieveTextOutput{}, err
		}
		out := RetrieveTextOutput{Results: make([]TextNode, len(resp.Results)), Count: resp.Count, Notice: resp.Notice}
		for i, r := range resp.Results {
			out.Results[i] = TextNode{NodeID: r.ID, Text: r.Text, Score: r.Score, Metadata: NodeMetadata{Path: r.Path, Level: r.Level,
				Summary: r.Summary, DocumentID: r.DocumentID, SourceType: string(r.SourceType), Source: r.Source, Page: r.Page, OCR: r.OCR, KBName: r.KBName}}
		}
		return nil, out, nil
	}
}

// retrieveVisual finds images extracted from PDF/DOCX files at ingest, by
// caption and nearby text.
func (m *Server) retrieveVisual(p preset) sdk.ToolHandlerFor[search.RetrieveRequest, RetrieveVisualOutput] {
	return func(ctx context.Context, _ *sdk.CallToolRequest, in search.RetrieveRequest) (*sdk.CallToolResult, RetrieveVisualOutput, error) {
		in.Mode = "" // pictures are found by hybrid search only
		found, err := m.svc.Search.RetrieveImages(ctx, p.retrieve(in))
		if err != nil {
			return nil, RetrieveVisualOutput{}, err
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

func (m *Server) listDocuments(p preset) sdk.ToolHandlerFor[library.ListRequest, library.DocumentList] {
	return func(ctx context.Context, _ *sdk.CallToolRequest, in library.ListRequest) (*sdk.CallToolResult, library.DocumentList, error) {
		in.KBName = p.kb(in.KBName)
		list, err := m.svc.Library.ListDocuments(ctx, in)
		if err != nil {
			return nil, library.DocumentList{}, err
		}
		return nil, list, nil
	}
}

func (m *Server) deleteDocument(p preset) sdk.ToolHandlerFor[DeleteInput, library.Deleted] {
	return func(ctx context.Context, _ *sdk.CallToolRequest, in DeleteInput) (*sdk.CallToolResult, library.Deleted, error) {
		res, err := m.svc.Library.DeleteDocument(ctx, p.kb(in.KBName), in.DocumentID)
		if err != nil {
			return nil, library.Deleted{}, err
		}
		return nil, res, nil
	}
}

func (m *Server) stats(ctx context.Context, _ *sdk.CallToolRequest, _ StatsInput) (*sdk.CallToolResult, library.Statistics, error) {
	res, err := m.svc.Library.Stats(ctx)
	if err != nil {
		return nil, library.Statistics{}, err
	}
	return nil, res.Statistics, nil
}

// guarded gives the handler the caller's principal (which the HTTP auth
// middleware put in the request's token info), so the service can check
// namespace access whichever transport the call came by; opens the call's
// span (traced.go), continuing the trace its _meta names; and turns a
// service error into the tool error the agent reads, logged here with the
// tool's name since the agent is told the server has the details.
func guarded[In, Out any](m *Server, h sdk.ToolHandlerFor[In, Out]) sdk.ToolHandlerFor[In, Out] {
	return func(ctx context.Context, req *sdk.CallToolRequest, in In) (*sdk.CallToolResult, Out, error) {
		if req != nil && req.Extra != nil {
			if p := authn.FromTokenInfo(req.Extra.TokenInfo); p != nil {
				ctx = authn.WithPrincipal(ctx, p)
			}
		}
		ctx, span := m.startCall(ctx, req)
		res, out, err := h(ctx, req, in)
		endCall(span, err)
		if err != nil {
			logToolError(ctx, m.log, req, err)
			err = toolError(err)
		}
		return res, out, err
	}
}

// kb is the namespace a call uses: the profile's, else the caller's.
func (p preset) kb(given string) string {
	if p.KBName != "" {
		return p.KBName
	}
	return given
}

// retrieve binds a retrieval to the profile: its namespace and, unless the
// call brings its own, its filter.
func (p preset) retrieve(r search.RetrieveRequest) search.RetrieveRequest {
	r.KBName = p.kb(r.KBName)
	if r.ScopeFilter == nil && p.Filter != nil {
		f := *p.Filter
		r.ScopeFilter = &f
	}
	if p.KBName != "" && r.ScopeFilter != nil {
		f := *r.ScopeFilter
		f.KBNames = nil // a profile's namespace is fixed
		r.ScopeFilter = &f
	}
	return r
}
