package api

import (
	"context"
	"io"
	"time"

	"ragd"
	"ragd/internal/library"
	"ragd/internal/library/archivesvc"
	"ragd/internal/library/embeddersvc"
	"ragd/internal/library/sourcesvc"
	"ragd/internal/retrieval/answer"
	"ragd/internal/retrieval/search"
)

// Services are what the REST API adapts, each through the narrow interface
// its handlers use.
type Services struct {
	Search  Searcher
	Answer  Answerer
	Library Librarian
	Health  HealthChecker
	// Archive exports and imports namespaces; nil serves neither.
	Archive Archivist
	// Embedders reports and switches the live embedder; nil serves
	// neither.
	Embedders EmbedderSwitcher
	// Sources adds, lists and syncs sources; nil serves none.
	Sources SourceKeeper
}

// SourceKeeper answers /sources.
type SourceKeeper interface {
	Create(ctx context.Context, req sourcesvc.SourceRequest) (ragd.Source, error)
	List(ctx context.Context, kb string) (sourcesvc.SourceList, error)
	Get(ctx context.Context, id string) (ragd.Source, error)
	Update(ctx context.Context, id string, req sourcesvc.SourcePatch) (ragd.Source, error)
	Delete(ctx context.Context, id string, keepDocuments bool) (sourcesvc.SourceDeleted, error)
	Sync(ctx context.Context, id string, req sourcesvc.SyncSourceRequest) (library.Enqueued, *sourcesvc.SourcePlan, error)
}

// EmbedderSwitcher answers GET /embedder and POST /embedder/switch.
type EmbedderSwitcher interface {
	Status(ctx context.Context) (embeddersvc.EmbedderStatus, error)
	StartSwitch(ctx context.Context, req embeddersvc.SwitchRequest) (embeddersvc.SwitchAccepted, error)
}

// Searcher answers rag_search.
type Searcher interface {
	Search(ctx context.Context, req search.RetrieveRequest) (search.SearchResponse, error)
}

// Answerer answers rag_query; onDelta, when set, receives the answer as it
// is written.
type Answerer interface {
	Query(ctx context.Context, req answer.QueryRequest, onDelta func(string) error) (answer.QueryResponse, error)
}

// Librarian indexes, reports jobs and keeps documents.
type Librarian interface {
	Index(ctx context.Context, req library.IndexRequest) (library.Enqueued, error)
	IndexDirectory(ctx context.Context, req library.DirectoryRequest) (library.Enqueued, error)
	PlanDirectory(ctx context.Context, req library.DirectoryRequest) (library.SyncPlan, error)
	Job(ctx context.Context, id string) (*ragd.Job, error)
	JobPage(ctx context.Context, id string, limit, offset *int) (*ragd.Job, error)
	WaitJob(ctx context.Context, id string, timeout time.Duration, onChange func(*ragd.Job)) (*ragd.Job, error)
	ListJobs(ctx context.Context, req library.JobListRequest) (library.JobList, error)
	CancelJob(ctx context.Context, req library.CancelRequest) (library.CancelledJob, error)
	ListDocuments(ctx context.Context, req library.ListRequest) (library.DocumentList, error)
	Document(ctx context.Context, kb, id string) (*ragd.Document, error)
	DeleteDocument(ctx context.Context, kb, id string) (library.Deleted, error)
	SetAccess(ctx context.Context, kb, id string, req library.AccessRequest) (*ragd.Document, error)
	Clear(ctx context.Context, kb string, all bool) (library.Cleared, error)
	NewSpool() *library.Spool
	Upload(ctx context.Context, req library.UploadRequest) (library.Uploaded, error)
	WaitUploads(ctx context.Context, up *library.Uploaded) (bool, error)
	Stats(ctx context.Context) (library.Stats, error)
}

// HealthChecker answers GET /health.
type HealthChecker interface {
	Health(ctx context.Context) library.Health
}

// Archivist exports a namespace as an archive and imports archives.
type Archivist interface {
	Export(ctx context.Context, kb string) (*archivesvc.Export, error)
	Import(ctx context.Context, kb string, body io.Reader, length int64) (archivesvc.ImportEnqueued, error)
}
