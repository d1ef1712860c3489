package api

import (
	"net/http"
	"slices"

	"github.com/labstack/echo/v4"

	"ragd"
	"ragd/internal/library"
	"ragd/internal/library/archivesvc"
	"ragd/internal/retrieval/answer"
	"ragd/internal/retrieval/search"
	"ragd/internal/server/openapi"
)

// route is one endpoint: the handler Echo serves and the operation the
// OpenAPI document describes, kept in one table so neither drifts.
type route struct {
	handler func(*handlers, echo.Context) error
	op      openapi.Operation
	// tool lists the route in GET /tools.
	tool bool
	// ownBodyLimit: the handler bounds the body by a setting of its own,
	// not http.max_body_bytes.
	ownBodyLimit bool
	// slowBody: the body may take long in all (an upload, an archive),
	// so each read of it is bounded (http.body_idle_timeout) rather than
	// the whole (http.body_timeout).
	slowBody bool
}

type (
	validationError = openapi.ValidationError
	errorDetail     = openapi.ErrorDetail
)

// errs are the error responses every JSON endpoint may give.
func errs(codes ...int) map[int]openapi.Response {
	m := map[int]openapi.Response{}
	for _, c := range codes {
		switch c {
		case 422:
			m[c] = openapi.Response{Description: "Validation error", Body: validationError{}}
		default:
			m[c] = openapi.Response{Description: http.StatusText(c), Body: errorDetail{}}
		}
	}
	return m
}

func with(m map[int]openapi.Response, code int, r openapi.Response) map[int]openapi.Response {
	m[code] = r
	return m
}

var kbParam = openapi.Param{Name: "kb_name", Description: "namespace (default: default)"}

// routes is every endpoint, in the order the OpenAPI document lists them.
func routes() []route {
	all := slices.Concat(serverRoutes(), toolRoutes(), jobRoutes(), embedderRoutes(), documentRoutes(), sourceRoutes(), specRoutes())
	for i := range all {
		all[i].op.Responses = withBodyErrors(all[i])
	}
	return all
}

// withBodyErrors adds to the responses of a route that reads a body the
// ones bodyDeadline gives on any route: 400 for a body cut short, 408 for
// one not arriving in time.
func withBodyErrors(r route) map[int]openapi.Response {
	if r.op.Request == nil && r.op.RawRequest == "" {
		return r.op.Responses
	}
	if _, ok := r.op.Responses[400]; !ok {
		r.op.Responses[400] = openapi.Response{Description: "Malformed or cut-short request body", Body: errorDetail{}}
	}
	timeout := "Request body not received within http.body_timeout"
	if r.slowBody {
		timeout = "Request body stalled for http.body_idle_timeout"
	}
	r.op.Responses[408] = openapi.Response{Description: timeout, Body: errorDetail{}}
	return r.op.Responses
}

// serverRoutes are the server's own endpoints and web search.
func serverRoutes() []route {
	return []route{
		{handler: (*handlers).info, op: openapi.Operation{Method: "GET", Path: "/", Summary: "Server info", Tags: []string{"server"},
			Responses: map[int]openapi.Response{200: {Body: serverInfo{}}}}},
		{handler: (*handlers).searchRPC, op: openapi.Operation{Method: "POST", Path: "/", Summary: "Web-search JSON-RPC 2.0 endpoint", Tags: []string{"websearch"},
			Description: "Methods initialize, list_tools (the search_topic tool), search {query | topic, max_results} and shutdown (acknowledged; the server keeps running). Batches and notifications per JSON-RPC 2.0.",
			Request:     jsonRPCRequest{}, Responses: with(with(errs(415), 200, openapi.Response{Body: jsonRPCResponse{}}),
				204, openapi.Response{Description: "Only notifications were sent"})}},
		{handler: (*handlers).searchStream, op: openapi.Operation{Method: "GET", Path: "/stream", Summary: "Web-search results as server-sent events", Tags: []string{"websearch"},
			Query:       []openapi.Param{{Name: "topic", Required: true}, {Name: "max_results", Type: "integer", Description: "1-20, default 5"}},
			Description: "Invalid parameters (422) and an unconfigured provider (503) are answered before the stream opens; a search that fails once it has opened is an event: error.",
			Responses: with(errs(422, 503), 200, openapi.Response{ContentType: "text/event-stream",
				Description: `one data: {"index","title","link","snippet"} event per result, then event: end {"count"}; a failed search as event: error {"message"}`})}},
		{handler: (*handlers).health, op: openapi.Operation{Method: "GET", Path: "/health", Summary: "Health of ragd and its dependencies", Tags: []string{"server"},
			Responses: map[int]openapi.Response{200: {Body: healthBody{}}, 503: {Description: "A dependency is down", Body: healthBody{}}}}},
		{handler: (*handlers).tools, op: openapi.Operation{Method: "GET", Path: "/tools", Summary: "The tools this server offers", Tags: []string{"tools"},
			Responses: map[int]openapi.Response{200: {Body: toolList{}}}}},
	}
}

// toolRoutes are the tools, as REST endpoints.
func toolRoutes() []route {
	return []route{
		{tool: true, handler: (*handlers).query, op: openapi.Operation{Method: "POST", Path: "/tools/rag_query", Tags: []string{"tools"},
			Summary:     "Answer a question from the documents, with citations",
			Description: "Retrieves the best passages and answers from them: with the configured chat model (numbered citations [n] that map to sources[n-1]), or extractively. stream:true answers as server-sent events: delta events carry text, a done event the full response.",
			Request:     answer.QueryRequest{},
			Responses: with(errs(400, 413, 415, 422, 503), 200, openapi.Response{Body: answer.QueryResponse{},
				Description: "The answer; with stream:true a text/event-stream of event: delta {text}, event: done {response}, event: error {detail}"})}},
		{tool: true, handler: (*handlers).search, op: openapi.Operation{Method: "POST", Path: "/tools/rag_search", Tags: []string{"tools"},
			Summary: "Find the chunks that best match a query (hybrid, vector or keyword)", Request: search.RetrieveRequest{},
			Responses: with(errs(400, 413, 415, 422, 503), 200, openapi.Response{Body: search.SearchResponse{}})}},
		{tool: true, handler: (*handlers).index, op: openapi.Operation{Method: "POST", Path: "/tools/rag_index", Tags: []string{"tools"},
			Summary:     "Index a file, URL or text (asynchronous)",
			Description: "Answers 202 with a job_id to poll at /jobs/{id}; unchanged content is a dedup hit (200, no job) unless force. wait:true waits for the job and answers 200 in the seed API's shape, or 202 when the wait limit passes.",
			Request:     indexBody{},
			Responses: with(with(errs(400, 403, 409, 413, 415, 422, 503), 202, openapi.Response{Description: "Job enqueued", Body: library.Enqueued{}}),
				200, openapi.Response{Description: "Dedup hit, or the finished job with wait:true", Body: indexed{}})}},
		{tool: true, handler: (*handlers).indexDirectory, op: openapi.Operation{Method: "POST", Path: "/tools/rag_index_directory", Tags: []string{"tools"},
			Summary: "Index every supported file of a directory (asynchronous, one job per file)", Request: library.DirectoryRequest{},
			Responses: with(with(errs(400, 403, 409, 413, 415, 422, 503), 202, openapi.Response{Description: "Job enqueued", Body: library.Enqueued{}}),
				200, openapi.Response{Description: "The finished job with wait:true", Body: indexed{}})}},
		{tool: true, handler: (*handlers).stats, op: openapi.Operation{Method: "GET", Path: "/tools/rag_stats", Tags: []string{"tools"},
			Summary:   "Documents and chunks per namespace, and the queue",
			Responses: with(errs(503), 200, openapi.Response{Body: library.Stats{}})}},
		{tool: true, handler: (*handlers).clear, op: openapi.Operation{Method: "DELETE", Path: "/tools/rag_clear", Tags: []string{"tools"},
			Summary: "Delete a namespace's documents, or every namespace's with all=true&confirm=true",
			Query: []openapi.Param{kbParam, {Name: "all", Type: "boolean", Description: "clear every namespace (needs confirm=true)"},
				{Name: "confirm", Type: "boolean", Description: "confirms all=true"}},
			Responses: with(errs(422, 503), 200, openapi.Response{Body: library.Cleared{}})}},
	}
}

// jobRoutes are the MCP tool list and the jobs.
func jobRoutes() []route {
	return []route{
		{handler: (*handlers).mcpTools, op: openapi.Operation{Method: "GET", Path: "/mcp/tools", Summary: "The MCP tools, as MCP clients list them", Tags: []string{"tools"},
			Description: "MCP itself is served at /mcp (streamable HTTP).", Responses: with(errs(404), 200, openapi.Response{Body: mcpToolList{}})}},
		{handler: (*handlers).job, op: openapi.Operation{Method: "GET", Path: "/jobs/:id", Summary: "State of an ingest job", Tags: []string{"jobs"},
			Description: "A directory job lists its files in children: all of them, or with limit (and offset) one page, whose next page starts at children_next_offset; progress and result always count every file.",
			Query: []openapi.Param{{Name: "limit", Type: "integer", Description: "a directory's files per page, 1-1000 (default: all)"},
				{Name: "offset", Type: "integer", Description: "files to skip, 0 or more, default 0"}},
			Responses: with(errs(404, 422, 503), 200, openapi.Response{Body: ragd.Job{}})}},
		{handler: (*handlers).listJobs, op: openapi.Operation{Method: "GET", Path: "/jobs", Summary: "Ingest jobs, newest first, one page at a time", Tags: []string{"jobs"},
			Description: "The jobs callers asked for (a directory's per-file jobs are in GET /jobs/{id}), finished ones for jobs.retention. Page on with offset=next_offset until next_offset is absent; total counts the jobs that match.",
			Query: []openapi.Param{{Name: "kb_name", Description: "only this namespace's jobs (default: every namespace the key may use)"},
				{Name: "status", Description: "only jobs in this status: queued, active, retry, completed, failed or cancelled"},
				{Name: "limit", Type: "integer", Description: "jobs per page, 1-1000, default 100"},
				{Name: "offset", Type: "integer", Description: "jobs to skip, 0 or more, default 0"}}, Responses: with(errs(403, 422, 503), 200, openapi.Response{Body: library.JobList{}})}},
		{handler: (*handlers).cancelJob, op: openapi.Operation{Method: "POST", Path: "/jobs/:id/cancel", Summary: "Cancel an ingest job", Tags: []string{"jobs"},
			Description: "A queued job is removed from the queue, a running one stopped; a directory job stops fanning out and its unfinished files are cancelled. A cancelled document job leaves the previous version current and none of its own chunks. Answers once the runs have stopped (at most 15 s). 409 for a job already completed, failed or cancelled.",
			Responses:   with(errs(404, 409, 503), 200, openapi.Response{Body: library.CancelledJob{}})}},
	}
}

// documentRoutes are the documents, uploads and archives.
func documentRoutes() []route {
	return []route{
		{handler: (*handlers).listDocuments, op: openapi.Operation{Method: "GET", Path: "/documents", Summary: "Documents of a namespace, one page at a time", Tags: []string{"documents"},
			Description: "Ordered by source, then id. Page on with offset=next_offset until next_offset is absent; total counts the whole namespace.",
			Query: []openapi.Param{kbParam, {Name: "limit", Type: "integer", Description: "documents per page, 1-1000, default 100"},
				{Name: "offset", Type: "integer", Description: "documents to skip, 0 or more, default 0"}}, Responses: with(errs(422, 503), 200, openapi.Response{Body: library.DocumentList{}})}},
		{handler: (*handlers).getDocument, op: openapi.Operation{Method: "GET", Path: "/documents/:id", Summary: "One document", Tags: []string{"documents"},
			Query: []openapi.Param{{Name: "kb_name", Description: "namespace (default: search all)"}}, Responses: with(errs(404, 422, 503), 200, openapi.Response{Body: ragd.Document{}})}},
		{handler: (*handlers).setAccess, op: openapi.Operation{Method: "PATCH", Path: "/documents/:id", Summary: "Change who may see a document", Tags: []string{"documents"},
			Description: "Replaces the document's access (the groups it is shared with; [] opens it to everyone who may use the namespace) without re-indexing it; it holds for every search, answer and cached result once this returns. An operator, or a principal in one of the document's groups, may. A document the caller may not see is 404.",
			Query:       []openapi.Param{{Name: "kb_name", Description: "namespace (default: search all)"}}, Request: library.AccessRequest{},
			Responses: with(errs(400, 403, 404, 415, 422, 503), 200, openapi.Response{Body: ragd.Document{}})}},
		{handler: (*handlers).deleteDocument, op: openapi.Operation{Method: "DELETE", Path: "/documents/:id", Summary: "Delete a document and its chunks", Tags: []string{"documents"},
			Query: []openapi.Param{{Name: "kb_name", Description: "namespace (default: search all)"}}, Responses: with(errs(404, 422, 503), 200, openapi.Response{Body: library.Deleted{}})}},
		{slowBody: true, handler: (*handlers).upload, op: openapi.Operation{Method: "POST", Path: uploadPath, Summary: "Upload files to index (multipart, asynchronous)", Tags: []string{"documents"},
			Description: "One document job per file part; the bytes are kept under <data.dir>/uploads by sha256 and the document is upload://<kb_name>/<filename>, so uploading a name again replaces that document's version. " +
				"Files whose bytes the namespace already holds are dedup hits (job_id null) unless force. A file over ingest.max_file_bytes is refused (413) as soon as that much is read; an unsupported extension or unusable filename is 422; a body that is not multipart/form-data 415. " +
				"With wait, the answer has each job's final state (a failed job is status failed with its error, not an error response), or 202 with their current states when http.wait_timeout passes.",
			RequestContentType: "multipart/form-data", Request: uploadForm{},
			Responses: with(with(errs(400, 403, 413, 415, 422, 503), 202, openapi.Response{Description: "Jobs enqueued, or with wait still running", Body: library.Uploaded{}}),
				200, openapi.Response{Description: "Every file a dedup hit, or with wait every job ended", Body: library.Uploaded{}})}},
		{handler: (*handlers).exportKB, op: openapi.Operation{Method: "GET", Path: "/kb/:kb_name/export", Summary: "Export a namespace as one archive", Tags: []string{"archives"},
			Description: "Streams the namespace's documents, chunks with their vectors, images and vocabulary as a gzip'd JSON-lines archive (docs/ARCHIVE.md). A namespace without documents is 404. An export that fails midway aborts the transfer; the archive then lacks its trailer and an import refuses it.",
			Responses:   with(errs(403, 404, 422, 503), 200, openapi.Response{ContentType: "application/gzip", Description: "The archive"})}},
		{ownBodyLimit: true, slowBody: true, handler: (*handlers).importKB, op: openapi.Operation{Method: "POST", Path: "/kb/:kb_name/import", Summary: "Import an archive into a namespace (asynchronous)", Tags: []string{"archives"},
			Description: "The body is an archive from GET /kb/{kb_name}/export, of any namespace, at most import.max_bytes. It is checked whole as it is stored (another embedder, a truncated or damaged archive: 422), then a job loads it; poll /jobs/{id}. Documents of the same id are replaced by the archive's version; the namespace's others stay.",
			RawRequest:  "application/gzip",
			Responses:   with(errs(403, 413, 415, 422, 503), 202, openapi.Response{Description: "Job enqueued", Body: archivesvc.ImportEnqueued{}})}},
	}
}

// specRoutes are metrics and this API's description.
func specRoutes() []route {
	return []route{
		{handler: (*handlers).serveMetrics, op: openapi.Operation{Method: "GET", Path: "/metrics", Summary: "Prometheus metrics", Tags: []string{"server"},
			Responses: map[int]openapi.Response{200: {ContentType: "text/plain"}}}},
		{handler: (*handlers).openAPI, op: openapi.Operation{Method: "GET", Path: "/openapi.json", Summary: "This document", Tags: []string{"server"},
			Responses: map[int]openapi.Response{200: {Description: "OpenAPI 3 document"}}}},
	}
}

// Spec is the OpenAPI document of the routes.
func Spec() ([]byte, error) {
	ops := []openapi.Operation{}
	for _, r := range routes() {
		ops = append(ops, r.op)
	}
	return openapi.Document(openapi.Info{Title: "ragd", Version: ragd.Version,
		Description: "Self-hosted knowledge-base server for LLM agents."}, ops)
}
