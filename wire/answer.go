package wire

// QueryRequest is a rag_query call.
type QueryRequest struct {
	RetrieveRequest
	IncludeSources *bool `json:"include_sources,omitempty" default:"true" jsonschema:"list the passages the answer may cite"`
	Stream         bool  `json:"stream,omitempty" jsonschema:"stream the answer as server-sent events"`
}

// Source is a passage an answer can cite: citation [n] is Sources[n-1].
type Source struct {
	Source     string  `json:"source"`
	Score      float64 `json:"score"`
	ChunkID    string  `json:"chunk_id"`
	DocumentID string  `json:"document_id"`
	Path       string  `json:"path"`
	Page       int     `json:"page,omitempty"`
	Cited      bool    `json:"cited"`
}

// Step records one tool call of an agentic answer.
type Step struct {
	Tool        string         `json:"tool"`
	Args        map[string]any `json:"args,omitempty"`
	TookMS      int64          `json:"took_ms"`
	ResultCount int            `json:"result_count"`
	Error       string         `json:"error,omitempty"`
}

// QueryResponse is the answer to rag_query.
type QueryResponse struct {
	Answer  string   `json:"answer"`
	Context []Result `json:"context"`
	Sources []Source `json:"sources"`
	Route   string   `json:"route"`
	Steps   []Step   `json:"steps"`
	// Fallback says why the chat model was not used although configured.
	Fallback string `json:"fallback,omitempty"`
}
