package wire

import "ragd"

// ListRequest asks for one page of a namespace's documents: GET
// /documents (from its query parameters) and core_list_documents.
type ListRequest struct {
	KBName string `json:"kb_name,omitempty" jsonschema:"namespace (default: default)"`
	// Limit and Offset are nil when not given: DefaultListLimit and 0. An
	// explicit 0 limit is refused rather than taken for the default.
	Limit  *int `json:"limit,omitempty" jsonschema:"documents per page, 1-1000 (default 100)"`
	Offset *int `json:"offset,omitempty" jsonschema:"documents to skip (default 0); pass the previous page's next_offset"`
}

// DocumentList answers GET /documents and core_list_documents: one page of
// the namespace's documents, ordered by source, then id.
type DocumentList struct {
	KBName    string          `json:"kb_name"`
	Documents []ragd.Document `json:"documents" jsonschema:"ordered by source, then document_id"`
	Count     int             `json:"count" jsonschema:"documents on this page"`
	Total     int             `json:"total" jsonschema:"documents in the namespace"`
	// NextOffset is nil on the last page, so a client pages until it is absent.
	NextOffset *int `json:"next_offset,omitempty" jsonschema:"offset of the next page; absent on the last page"`
}

// AccessRequest is PATCH /documents/{id}'s body: who may see the document.
type AccessRequest struct {
	// Access is a pointer so that a body without it is refused rather
	// than read as "open to everyone".
	Access *[]string `json:"access" jsonschema:"groups to share the document with, at most 100 names of up to 128 characters; [] opens it to everyone who may use the namespace"`
}

// Deleted answers DELETE /documents/{id}.
type Deleted struct {
	Status        string `json:"status"`
	DocumentID    string `json:"document_id"`
	KBName        string `json:"kb_name"`
	ChunksDeleted int    `json:"chunks_deleted"`
}

// Cleared answers DELETE /tools/rag_clear.
type Cleared struct {
	Status     string   `json:"status"`
	Namespaces []string `json:"kb_names"`
}
