package wire

import "ragd"

// ScopeFilter narrows a retrieval; each non-empty list must match. The doc
// tags describe it in the OpenAPI document, the jsonschema tags in the MCP
// tools' schemas.
type ScopeFilter struct {
	KBNames     []string `json:"kb_names,omitempty" jsonschema:"namespaces to search together, at most 20 (merged by reciprocal rank fusion)"`
	Tags        []string `json:"tags,omitempty" jsonschema:"only chunks with any of these tags, at most 100"`
	DocumentIDs []string `json:"document_ids,omitempty" jsonschema:"only these documents, at most 1000 ids"`
	SourceTypes []string `json:"source_types,omitempty" jsonschema:"only these source types: pdf, docx, html, md, txt, url"`
}

// RetrieveRequest asks for the chunks that best match a query: rag_search,
// rag_query, core_retrieve_text, core_retrieve_visual and core_query all
// take it, with one set of defaults and one validation (Plan).
type RetrieveRequest struct {
	Query       string       `json:"query" jsonschema:"what to look for, or the question to answer, in natural language"`
	Queries     []string     `json:"queries,omitempty" jsonschema:"optional: up to 5 other phrasings of the same question, each searched too and merged by reciprocal rank fusion; 2-3 phrasings in the words the documents themselves would use (their terms, names, jargon) find passages one wording misses (core_retrieve_visual searches query only)"`
	TopK        *int         `json:"top_k,omitempty" minimum:"1" maximum:"20" default:"5" jsonschema:"how many passages to return or answer from, 1-20 (default 5)"`
	KBName      string       `json:"kb_name,omitempty" jsonschema:"namespace (default: default)"`
	Scope       []string     `json:"scope,omitempty" jsonschema:"document ids to search within, at most 1000"`
	ScopeFilter *ScopeFilter `json:"scope_filter,omitempty"`
	Mode        string       `json:"mode,omitempty" jsonschema:"hybrid (default), vector or keyword retrieval; rag_query and core_query also take agentic (the server's chat model chooses between the documents, the web and a direct answer) and auto (agentic when a chat model is configured)"`
}

// Result is one retrieved chunk.
type Result struct {
	ID         string          `json:"id"`
	Text       string          `json:"text"`
	Score      float64         `json:"score"`
	DocumentID string          `json:"document_id"`
	Source     string          `json:"source"`
	SourceType ragd.SourceType `json:"source_type"`
	Path       string          `json:"path"`
	Level      int             `json:"level"`
	Summary    string          `json:"summary"`
	Page       int             `json:"page,omitempty"`
	OCR        bool            `json:"ocr,omitempty" jsonschema:"the text was read by OCR from a scanned PDF page (may hold misread words)"`
	KBName     string          `json:"kb_name"`
	Timestamp  string          `json:"timestamp"`
}

// SearchResponse is the answer to rag_search.
type SearchResponse struct {
	Query   string   `json:"query"`
	Results []Result `json:"results"`
	Count   int      `json:"count"`
	// Notice says why there is nothing to find, when no namespace searched
	// holds a document the caller may see (search.Service.NoDocuments).
	Notice string `json:"notice,omitempty" jsonschema:"set when no namespace searched holds a document you may see: nothing was indexed there, it was cleared, or it does not exist"`
}

// Limits of top_k.
const (
	DefaultTopK = 5
	MaxTopK     = 20
)
