package mcpserver

import (
	"ragd"
	"ragd/internal/adapter/websearch"
	"ragd/internal/library"
	"ragd/internal/retrieval/answer"
)

// The tools' own inputs and outputs: where MCP has a shape of its own
// (core_ingest's wait result, core_retrieve_text's nodes, …). Every
// other tool takes and returns the service layer's types, as REST does.
// The JSON schemas agents see are derived from the structs; the jsonschema
// tags are the descriptions.

// IngestOutput is core_ingest's and core_ingest_directory's result.
type IngestOutput struct {
	JobID      string         `json:"job_id" jsonschema:"poll it with core_job_status; empty when nothing had to be done (dedup_hit)"`
	Status     string         `json:"status" jsonschema:"queued, active, retry, completed, failed or cancelled; planned for a dry_run"`
	DocumentID string         `json:"document_id,omitempty"`
	DedupHit   bool           `json:"dedup_hit" jsonschema:"true when the same content was already indexed in this namespace"`
	Progress   *ragd.Progress `json:"progress,omitempty" jsonschema:"with wait: how far the job got"`
	Result     any            `json:"result,omitempty" jsonschema:"with wait, once completed: what was indexed"`
	Error      string         `json:"error,omitempty" jsonschema:"with wait, if the job failed: why"`
	// Plan answers core_ingest_directory's dry_run.
	Plan *library.SyncPlan `json:"plan,omitempty" jsonschema:"with dry_run: what the sync would do; nothing was changed"`
}

// JobOutput is core_job_status's result.
type JobOutput struct {
	JobID    string          `json:"job_id"`
	Type     string          `json:"type" jsonschema:"ingest:document or ingest:directory"`
	Status   string          `json:"status" jsonschema:"queued, active, retry, completed, failed or cancelled; poll again until completed, failed or cancelled"`
	Progress ragd.Progress   `json:"progress"`
	Result   any             `json:"result,omitempty" jsonschema:"once completed: what the job indexed"`
	Error    string          `json:"error,omitempty"`
	Children []ragd.ChildJob `json:"children,omitempty" jsonschema:"a directory job's per-file jobs (one page when limit was given)"`
	// ChildrenNextOffset is ragd.Job's.
	ChildrenNextOffset *int `json:"children_next_offset,omitempty" jsonschema:"where the next page of children starts, when a page was asked for and more follow"`
}

// JobInput is core_job_status's input.
type JobInput struct {
	JobID string `json:"job_id" jsonschema:"the job_id core_ingest or core_ingest_directory returned"`
	// Limit and Offset page a directory job's files (nil: all of them).
	Limit  *int `json:"limit,omitempty" jsonschema:"a directory job's files to list, 1-1000 (default: all); progress counts every file"`
	Offset *int `json:"offset,omitempty" jsonschema:"files to skip (default 0); pass the previous answer's children_next_offset"`
}

// QueryOutput is core_query's result.
type QueryOutput struct {
	Answer  string          `json:"answer" jsonschema:"the answer; [n] cites sources[n-1]"`
	Sources []answer.Source `json:"sources"`
	Route   string          `json:"route" jsonschema:"llm, sampling, extractive or not_found; agentic: documents, web, direct or mixed"`
	Steps   []answer.Step   `json:"steps"`
	// Fallback says why a model was asked but the answer is extractive.
	Fallback string `json:"fallback,omitempty" jsonschema:"why the answer is extractive although a model was asked (it failed or declined)"`
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
	OCR        bool   `json:"ocr,omitempty" jsonschema:"the text was read by OCR from a scanned PDF page (may hold misread words)"`
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
	// Notice is wire.SearchResponse's: why there is nothing to find.
	Notice string `json:"notice,omitempty" jsonschema:"set when no namespace searched holds a document you may see: nothing was indexed there, it was cleared, or it does not exist"`
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
