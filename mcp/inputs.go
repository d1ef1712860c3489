package mcp

import (
	"ragd"
	"ragd/rag"
	"ragd/websearch"
)

// The tools' inputs and outputs. Their JSON schemas, which the agent sees,
// are derived from these structs; the jsonschema tags are the descriptions.

// IngestInput is core_ingest's input.
type IngestInput struct {
	SourceURI  string   `json:"source_uri" jsonschema:"what to index: a file path inside the server's ingest roots, an http(s) URL, or (with source_type text) the text itself"`
	SourceType string   `json:"source_type,omitempty" jsonschema:"file, url or text; inferred from source_uri when omitted"`
	KBName     string   `json:"kb_name,omitempty" jsonschema:"namespace to index into (default: default)"`
	Wait       bool     `json:"wait,omitempty" jsonschema:"wait for the job to finish (up to the server's wait limit, with progress notifications) instead of returning at once"`
	Force      bool     `json:"force,omitempty" jsonschema:"re-index even if the same content is already indexed"`
	Tags       []string `json:"tags,omitempty" jsonschema:"labels to filter searches by later"`
}

// IngestOutput is core_ingest's and core_ingest_directory's result.
type IngestOutput struct {
	JobID      string         `json:"job_id" jsonschema:"poll it with core_job_status; empty when nothing had to be done (dedup_hit)"`
	Status     string         `json:"status" jsonschema:"queued, active, retry, completed or failed"`
	DocumentID string         `json:"document_id,omitempty"`
	DedupHit   bool           `json:"dedup_hit" jsonschema:"true when the same content was already indexed in this namespace"`
	Progress   *ragd.Progress `json:"progress,omitempty" jsonschema:"with wait: how far the job got"`
	Result     any            `json:"result,omitempty" jsonschema:"with wait, once completed: what was indexed"`
	Error      string         `json:"error,omitempty" jsonschema:"with wait, if the job failed: why"`
}

// JobOutput is core_job_status's result.
type JobOutput struct {
	JobID    string          `json:"job_id"`
	Type     string          `json:"type" jsonschema:"ingest:document or ingest:directory"`
	Status   string          `json:"status" jsonschema:"queued, active, retry, completed or failed; poll again until completed or failed"`
	Progress ragd.Progress   `json:"progress"`
	Result   any             `json:"result,omitempty" jsonschema:"once completed: what the job indexed"`
	Error    string          `json:"error,omitempty"`
	Children []ragd.ChildJob `json:"children,omitempty" jsonschema:"a directory job's per-file jobs"`
}

// DirectoryInput is core_ingest_directory's input.
type DirectoryInput struct {
	DirectoryPath string   `json:"directory_path" jsonschema:"a directory inside the server's ingest roots"`
	Recursive     *bool    `json:"recursive,omitempty" jsonschema:"include subdirectories (default true)"`
	KBName        string   `json:"kb_name,omitempty" jsonschema:"namespace to index into (default: default)"`
	Wait          bool     `json:"wait,omitempty" jsonschema:"wait for all files (up to the server's wait limit, with progress notifications)"`
	Force         bool     `json:"force,omitempty"`
	Tags          []string `json:"tags,omitempty"`
}

// JobInput is core_job_status's input.
type JobInput struct {
	JobID string `json:"job_id" jsonschema:"the job_id core_ingest or core_ingest_directory returned"`
}

// ScopeFilter narrows retrieval.
type ScopeFilter struct {
	KBNames     []string `json:"kb_names,omitempty" jsonschema:"namespaces to search together"`
	Tags        []string `json:"tags,omitempty" jsonschema:"only chunks with any of these tags"`
	DocumentIDs []string `json:"document_ids,omitempty" jsonschema:"only these documents"`
	SourceTypes []string `json:"source_types,omitempty" jsonschema:"only these source types: pdf, docx, html, md, txt, url"`
}

// QueryInput is core_query's input.
type QueryInput struct {
	Query       string       `json:"query" jsonschema:"the question, in natural language"`
	Mode        string       `json:"mode,omitempty" jsonschema:"hybrid (default), vector or keyword retrieval; agentic lets the server's chat model choose between the documents, the web and a direct answer; auto is agentic when a chat model is configured"`
	Scope       []string     `json:"scope,omitempty" jsonschema:"document ids to answer from"`
	KBName      string       `json:"kb_name,omitempty" jsonschema:"namespace (default: default)"`
	ScopeFilter *ScopeFilter `json:"scope_filter,omitempty"`
	TopK        int          `json:"top_k,omitempty" jsonschema:"passages to answer from, 1-20 (default 5)"`
}

// QueryOutput is core_query's result.
type QueryOutput struct {
	Answer  string       `json:"answer" jsonschema:"the answer; [n] cites sources[n-1]"`
	Sources []rag.Source `json:"sources"`
	Route   string       `json:"route" jsonschema:"llm, extractive or not_found; agentic: documents, web, direct or mixed"`
	Steps   []rag.Step   `json:"steps"`
}

// RetrieveInput is core_retrieve_text's and core_retrieve_visual's input.
type RetrieveInput struct {
	Query       string       `json:"query" jsonschema:"what to look for"`
	Scope       []string     `json:"scope,omitempty" jsonschema:"document ids to search within"`
	TopK        int          `json:"top_k,omitempty" jsonschema:"how many results, 1-20 (default 5)"`
	KBName      string       `json:"kb_name,omitempty" jsonschema:"namespace (default: default)"`
	Mode        string       `json:"mode,omitempty" jsonschema:"hybrid (default), vector or keyword"`
	ScopeFilter *ScopeFilter `json:"scope_filter,omitempty"`
}

// NodeMetadata describes where a retrieved chunk comes from.
type NodeMetadata struct {
	Path       string `json:"path" jsonschema:"heading trail, e.g. Title > Section"`
	Level      int    `json:"level"`
	Summary    string `json:"summary"`
	DocumentID string `json:"document_id"`
	SourceType string `json:"source_type"`
	Source     string `json:"source"`
	Page       int    `json:"page,omitempty"`
	KBName     string `json:"kb_name"`
}

// TextNode is one retrieved chunk.
type TextNode struct {
	NodeID   string       `json:"node_id"`
	Text     string       `json:"text"`
	Score    float64      `json:"score"`
	Metadata NodeMetadata `json:"metadata"`
}

// RetrieveTextOutput is core_retrieve_text's result.
type RetrieveTextOutput struct {
	Results []TextNode `json:"results"`
	Count   int        `json:"count"`
}

// VisualNode is one retrieved image.
type VisualNode struct {
	ImageID    string  `json:"image_id"`
	DocumentID string  `json:"document_id"`
	Page       int     `json:"page" jsonschema:"1-based page for PDF, 0 for DOCX"`
	Position   int     `json:"position" jsonschema:"order of the image on its page (PDF) or in the document (DOCX)"`
	Score      float64 `json:"score"`
	Caption    string  `json:"caption,omitempty"`
	Source     string  `json:"source,omitempty"`
	Format     string  `json:"format,omitempty"`
}

// RetrieveVisualOutput is core_retrieve_visual's result.
type RetrieveVisualOutput struct {
	Results []VisualNode `json:"results"`
	Count   int          `json:"count"`
	Note    string       `json:"note,omitempty"`
}

// ListInput is core_list_documents's input. Limit and Offset are pointers
// so that an explicit 0 is refused rather than taken for the default.
type ListInput struct {
	KBName string `json:"kb_name,omitempty" jsonschema:"namespace (default: default)"`
	Limit  *int   `json:"limit,omitempty" jsonschema:"documents per page, 1-1000 (default 100)"`
	Offset *int   `json:"offset,omitempty" jsonschema:"documents to skip (default 0); pass the previous page's next_offset"`
}

// ListOutput is core_list_documents's result: one page of documents.
type ListOutput struct {
	KBName     string          `json:"kb_name"`
	Documents  []ragd.Document `json:"documents" jsonschema:"ordered by source, then document_id"`
	Count      int             `json:"count" jsonschema:"documents on this page"`
	Total      int             `json:"total" jsonschema:"documents in the namespace"`
	NextOffset *int            `json:"next_offset,omitempty" jsonschema:"offset of the next page; absent on the last page"`
}

// DeleteInput is core_delete_document's input.
type DeleteInput struct {
	DocumentID string `json:"document_id" jsonschema:"the document to delete, as core_list_documents or a search result names it"`
	KBName     string `json:"kb_name,omitempty" jsonschema:"its namespace (default: looked up)"`
}

// StatsInput is core_stats's (empty) input.
type StatsInput struct{}

// SearchWebInput is core_search_web's input.
type SearchWebInput struct {
	Query      string `json:"query" jsonschema:"the web search query"`
	MaxResults int    `json:"max_results,omitempty" jsonschema:"results to return, 1-20 (default 5)"`
}

// SearchWebOutput is core_search_web's result.
type SearchWebOutput struct {
	Results []websearch.Result `json:"results"`
	Count   int                `json:"count"`
}
