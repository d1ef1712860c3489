package mcpserver

import (
	"context"
	"time"

	"ragd"
	"ragd/internal/library"
	"ragd/internal/library/sourcesvc"
	"ragd/internal/retrieval/answer"
	"ragd/internal/retrieval/search"
)

// Services are what the MCP tools adapt, each through the narrow interface
// the tools use.
type Services struct {
	Search  Searcher
	Answer  Answerer
	Library Librarian
	// Sources lists and syncs sources; nil offers no source tools.
	Sources SourceKeeper
}

// Searcher finds passages and pictures.
type Searcher interface {
	Search(ctx context.Context, req search.RetrieveRequest) (search.SearchResponse, error)
	RetrieveImages(ctx context.Context, req search.RetrieveRequest) ([]search.ImageResult, error)
}

// Answerer answers questions from the documents.
type Answerer interface {
	Query(ctx context.Context, req answer.QueryRequest, onDelta func(string) error) (answer.QueryResponse, error)
	GroundedPrompt(ctx context.Context, req search.RetrieveRequest) (answer.GroundedPrompt, error)
}

// Librarian indexes, reports jobs and keeps documents.
type Librarian interface {
	Ingest(ctx context.Context, req library.IngestRequest) (library.Enqueued, error)
	IndexDirectory(ctx context.Context, req library.DirectoryRequest) (library.Enqueued, error)
	PlanDirectory(ctx context.Context, req library.DirectoryRequest) (library.SyncPlan, error)
	Job(ctx context.Context, id string) (*ragd.Job, error)
	JobPage(ctx context.Context, id string, limit, offset *int) (*ragd.Job, error)
	WaitJob(ctx context.Context, id string, timeout time.Duration, onChange func(*ragd.Job)) (*ragd.Job, error)
	ListJobs(ctx context.Context, req library.JobListRequest) (library.JobList, error)
	CancelJob(ctx context.Context, req library.CancelRequest) (library.CancelledJob, error)
	ListDocuments(ctx context.Context, req library.ListRequest) (library.DocumentList, error)
	DeleteDocument(ctx context.Context, kb, id string) (library.Deleted, error)
	Stats(ctx context.Context) (library.Stats, error)
	// What resources, prompts and completions read.
	BrowseDocuments(ctx context.Context, cursor string, limit int) (library.Browse, error)
	DocumentText(ctx context.Context, kb, id string, maxBytes int) (library.DocumentText, error)
	Chunk(ctx context.Context, kb, id string) (library.ChunkText, error)
	NamespacesMatching(ctx context.Context, prefix string, limit int) ([]string, int, error)
	DocumentIDsMatching(ctx context.Context, kb, prefix string, limit int) ([]string, bool, error)
}

// SourceKeeper lists and syncs the sources kept in sync (sourcesvc.Sources).
type SourceKeeper interface {
	List(ctx context.Context, kb string) (sourcesvc.SourceList, error)
	Sync(ctx context.Context, id string, req sourcesvc.SyncSourceRequest) (library.Enqueued, *sourcesvc.SourcePlan, error)
}
