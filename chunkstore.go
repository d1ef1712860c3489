package ragd

import "context"

// The chunk store's ports: each caller holds only the part it uses, so a
// search cannot delete and a fake for a service test stays small.

// ChunkReader finds and reads chunks and pictures.
type ChunkReader interface {
	// Search runs q in the namespace; a namespace that holds nothing yet
	// answers with no hits.
	Search(ctx context.Context, namespace string, q ChunkQuery) ([]Hit, error)
	// SearchImages finds pictures by their caption and nearby text.
	SearchImages(ctx context.Context, namespace string, q ChunkQuery) ([]ImageHit, error)
	// Count counts a namespace's chunks, or one document's when
	// documentID is set.
	Count(ctx context.Context, namespace, documentID string) (int, error)
	// CountVersion counts the chunks of one version of a document.
	CountVersion(ctx context.Context, namespace, documentID, contentHash string) (int, error)
	// DocumentChunks returns up to limit chunks of one version of a
	// document from chunk_index from on, in chunk_index order.
	DocumentChunks(ctx context.Context, namespace, documentID, contentHash string, from, limit int) ([]Chunk, error)
	// DocumentVectors is DocumentChunks with each chunk's vector: a
	// document moved under another source carries them over instead of
	// embedding its chunks again.
	DocumentVectors(ctx context.Context, namespace, documentID, contentHash string, from, limit int) ([]Chunk, error)
	// Chunk returns one chunk by id, or nil when the namespace has none.
	Chunk(ctx context.Context, namespace, id string) (*Chunk, error)
	// Namespaces lists the namespaces that hold chunks.
	Namespaces(ctx context.Context) ([]string, error)
	// Collection names the collection, for statistics.
	Collection() string
}

// ChunkWriter writes and deletes chunks and pictures.
type ChunkWriter interface {
	// Upsert writes chunks; an existing id is replaced.
	Upsert(ctx context.Context, namespace string, chunks []Chunk) error
	// UpsertImages writes pictures (a collection of their own).
	UpsertImages(ctx context.Context, namespace string, images []Image) error
	// DeleteStale deletes a document's chunks and images of every version
	// but keepHash's and reports how many chunks went.
	DeleteStale(ctx context.Context, namespace, documentID, keepHash string) (int, error)
	// DeleteDocument deletes all of a document's chunks and images.
	DeleteDocument(ctx context.Context, namespace, documentID string) (int, error)
	// ClearNamespace deletes everything of the namespace.
	ClearNamespace(ctx context.Context, namespace string) error
	// SetAccess rewrites the access of one version of a document, its
	// chunks and images, and reports how many chunks it rewrote.
	SetAccess(ctx context.Context, namespace, documentID, contentHash string, access []string) (int, error)
}

// ChunkScanner pages through everything a namespace holds, for exports.
type ChunkScanner interface {
	// ScanChunks pages through a namespace's chunks, vectors and related
	// words included: up to limit of them after the chunk id after ("" for
	// the first page), in id order.
	ScanChunks(ctx context.Context, namespace, after string, limit int) ([]Chunk, error)
	// ScanImages pages through a namespace's pictures as ScanChunks does.
	ScanImages(ctx context.Context, namespace, after string, limit int) ([]Image, error)
}

// ChunkStore keeps the chunks and pictures of every namespace (Weaviate,
// one tenant per namespace): all three ports and a health check. Services
// receive it, or the port they need, already guarded (breaker, timeout,
// retries).
type ChunkStore interface {
	ChunkReader
	ChunkWriter
	ChunkScanner
	// Ping checks the store answers.
	Ping(ctx context.Context) error
}

// SearchMode selects how a query is scored.
type SearchMode string

// The search modes.
const (
	ModeHybrid  SearchMode = "hybrid"  // BM25 and vector scores fused, weighted by Alpha
	ModeVector  SearchMode = "vector"  // nearest vectors only
	ModeKeyword SearchMode = "keyword" // BM25 only
)

// ChunkQuery is one search in one namespace.
type ChunkQuery struct {
	Text   string
	Vector []float32
	Mode   SearchMode
	// Alpha weights the vector side of a hybrid query: 0 is pure BM25, 1 pure vector.
	Alpha float64
	Limit int
	// Optional filters; empty means no restriction.
	DocumentIDs []string
	Tags        []string
	SourceTypes []string
	// WithVectors returns each hit's vector (for diversity re-ranking).
	WithVectors bool
	// RankedFusion fuses a hybrid query's BM25 and vector results by rank
	// instead of by min-max normalised score.
	RankedFusion bool
	// PathBoost weighs matches in the heading trail against matches in the
	// body (BM25 property boost); 0 means 1.
	PathBoost float64
	// Related searches, by BM25 only, the words a thesaurus related to each
	// chunk (Chunk.Related) instead of its body and heading trail.
	Related bool
}

// Hit is a chunk found by a query with its score (higher is better).
type Hit struct {
	Chunk
	Score float64
}

// Image is a picture extracted from a document, kept apart from the chunks
// so image search never mixes with text search. Its vector embeds the
// caption and the text around it.
type Image struct {
	ID          string `json:"id"`
	Namespace   string `json:"kb_name"`
	DocumentID  string `json:"document_id"`
	ContentHash string `json:"content_hash"`
	Source      string `json:"source"`
	Index       int    `json:"image_index"`
	Page        int    `json:"page"`
	Position    int    `json:"position"`
	Caption     string `json:"caption"`
	Nearby      string `json:"nearby"`
	Format      string `json:"format"`
	Width       int    `json:"width"`
	Height      int    `json:"height"`
	// Access is the document's, as on its chunks; never shown.
	Access []string `json:"-"`
	// Vector is left out of the JSON, as a chunk's is.
	Vector []float32 `json:"-"`
}

// EmbeddingText is what a picture's vector is computed from: its caption
// and the text near it.
func (im Image) EmbeddingText() string { return im.Caption + "\n" + im.Nearby }

// ImageHit is a picture found by a query.
type ImageHit struct {
	Image
	Score float64
}

type vectorSpaceKey struct{}

// WithVectorSpace marks ctx as working in one vector space (the live
// collection a request is pinned to), which space names when first asked:
// caches of vectors and results keep apart what was computed in different
// spaces.
func WithVectorSpace(ctx context.Context, space func() string) context.Context {
	return context.WithValue(ctx, vectorSpaceKey{}, space)
}

// VectorSpace is the space WithVectorSpace marked ctx with, "" for none.
func VectorSpace(ctx context.Context) string {
	if space, ok := ctx.Value(vectorSpaceKey{}).(func() string); ok {
		return space()
	}
	return ""
}
