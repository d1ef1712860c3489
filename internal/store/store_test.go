package store

import (
	"context"
	"math"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/weaviate/weaviate-go-client/v5/weaviate"
	"github.com/weaviate/weaviate-go-client/v5/weaviate/grpc"

	"ragd"
	"ragd/internal/testkit/testenv"
)

func openTestStore(t *testing.T, embedder string, dim int) (*Store, Config) {
	t.Helper()
	cfg := Config{URL: testenv.WeaviateURL(t), GRPCAddr: testenv.WeaviateGRPC(t),
		Collection: testenv.Unique(t, "T"), BatchSize: 50, Timeout: 20 * time.Second}
	s, err := Open(context.Background(), cfg, embedder, dim)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = s.client.Schema().ClassDeleter().WithClassName(cfg.Collection).Do(context.Background())
		_ = s.client.Schema().ClassDeleter().WithClassName(s.imageClass()).Do(context.Background())
	})
	return s, cfg
}

// referenceClient is a Weaviate client of the test node with its own gRPC
// connection, which ragd's store no longer opens: the reference that
// ragd's own reads and writes are held to.
func referenceClient(t *testing.T) *weaviate.Client {
	t.Helper()
	u, err := url.Parse(testenv.WeaviateURL(t))
	if err != nil {
		t.Fatal(err)
	}
	c, err := weaviate.NewClient(weaviate.Config{Host: u.Host, Scheme: u.Scheme, GrpcConfig: &grpc.Config{Host: testenv.WeaviateGRPC(t)}})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// vec makes a deterministic unit vector pointing mostly along axis i.
func vec(dim, i int) []float32 {
	v := make([]float32, dim)
	for j := range v {
		v[j] = 0.01
	}
	v[i%dim] = 1
	var n float64
	for _, x := range v {
		n += float64(x * x)
	}
	for j := range v {
		v[j] /= float32(math.Sqrt(n))
	}
	return v
}

func chunks(doc, hash string, texts ...string) []ragd.Chunk {
	out := make([]ragd.Chunk, len(texts))
	for i, text := range texts {
		out[i] = ragd.Chunk{ID: ragd.ChunkID(doc, hash, i), DocumentID: doc, ContentHash: hash, Index: i,
			Text: text, Source: "file:///" + doc, SourceType: ragd.SourceText, Path: "Doc > Part",
			Level: 1, Timestamp: time.Now(), Vector: vec(8, i), Tags: []string{"t1"}}
	}
	return out
}

func TestCollectionRecordsEmbedder(t *testing.T) {
	ctx := context.Background()
	_, cfg := openTestStore(t, "model-a", 8)
	if _, err := Open(ctx, cfg, "model-a", 8); err != nil {
		t.Fatalf("reopen with the same embedder: %v", err)
	}
	_, err := Open(ctx, cfg, "model-b", 8)
	if err == nil || !strings.Contains(err.Error(), "model-a") || !strings.Contains(err.Error(), "model-b") {
		t.Fatalf("other embedder: want an error naming both models, got %v", err)
	}
	_, err = Open(ctx, cfg, "model-a", 16)
	if err == nil || !strings.Contains(err.Error(), "dimension 8") {
		t.Fatalf("other dimension: want an error naming the dimension, got %v", err)
	}
}

func TestUpsertSearchDeleteIsolatedByNamespace(t *testing.T) {
	ctx := context.Background()
	s, _ := openTestStore(t, "m", 8)

	v1 := chunks("doc1", "h1", "the quick brown fox jumps", "lazy dogs sleep all day", "foxes hunt at night")
	if err := s.Upsert(ctx, "ns-a", v1); err != nil {
		t.Fatal(err)
	}
	if err := s.Upsert(ctx, "ns-b", chunks("doc9", "h9", "a fox in another namespace")); err != nil {
		t.Fatal(err)
	}
	// Writing the same chunks again must not duplicate them.
	if err := s.Upsert(ctx, "ns-a", v1); err != nil {
		t.Fatal(err)
	}
	if n, err := s.Count(ctx, "ns-a", ""); err != nil || n != 3 {
		t.Fatalf("count ns-a = %d, %v; want 3", n, err)
	}

	for _, mode := range []ragd.SearchMode{ragd.ModeHybrid, ragd.ModeKeyword, ragd.ModeVector} {
		hits, err := s.Search(ctx, "ns-a", ragd.ChunkQuery{Text: "fox", Vector: vec(8, 0), Mode: mode, Alpha: 0.3, Limit: 5})
		if err != nil {
			t.Fatalf("%s: %v", mode, err)
		}
		if len(hits) == 0 {
			t.Fatalf("%s: no hits", mode)
		}
		for _, h := range hits {
			if h.DocumentID != "doc1" || h.Namespace != "ns-a" {
				t.Fatalf("%s: hit from another namespace: %+v", mode, h)
			}
		}
		if mode != ragd.ModeKeyword && hits[0].Index != 0 {
			t.Errorf("%s: top hit chunk %d, want 0", mode, hits[0].Index)
		}
		if hits[0].Path != "Doc > Part" || hits[0].Level != 1 || hits[0].Timestamp.IsZero() || len(hits[0].Tags) != 1 {
			t.Errorf("%s: properties not round-tripped: %+v", mode, hits[0].Chunk)
		}
	}

	// Re-ingest a changed version: write new, then delete stale.
	v2 := chunks("doc1", "h2", "the quick brown fox was rewritten")
	if err := s.Upsert(ctx, "ns-a", v2); err != nil {
		t.Fatal(err)
	}
	if n, _ := s.Count(ctx, "ns-a", "doc1"); n != 4 {
		t.Fatalf("before DeleteStale: %d chunks, want 4", n)
	}
	deleted, err := s.DeleteStale(ctx, "ns-a", "doc1", "h2")
	if err != nil || deleted != 3 {
		t.Fatalf("DeleteStale = %d, %v; want 3", deleted, err)
	}
	if n, _ := s.Count(ctx, "ns-a", "doc1"); n != 1 {
		t.Fatalf("after DeleteStale: %d chunks, want 1", n)
	}

	// Filters.
	hits, err := s.Search(ctx, "ns-a", ragd.ChunkQuery{Text: "fox", Vector: vec(8, 0), Mode: ragd.ModeHybrid, Alpha: 0.3, Limit: 5, DocumentIDs: []string{"nope"}})
	if err != nil || len(hits) != 0 {
		t.Fatalf("document filter: %d hits, %v", len(hits), err)
	}

	// Empty and unknown namespaces answer with nothing, not an error.
	if hits, err := s.Search(ctx, "never-used", ragd.ChunkQuery{Text: "fox", Vector: vec(8, 0), Limit: 5, Alpha: 0.3}); err != nil || len(hits) != 0 {
		t.Fatalf("unknown namespace: %v, %v", hits, err)
	}
	if n, err := s.Count(ctx, "never-used", ""); err != nil || n != 0 {
		t.Fatalf("count unknown namespace: %d, %v", n, err)
	}

	if _, err := s.DeleteDocument(ctx, "ns-a", "doc1"); err != nil {
		t.Fatal(err)
	}
	if n, _ := s.Count(ctx, "ns-a", ""); n != 0 {
		t.Fatalf("after DeleteDocument: %d", n)
	}
	if err := s.ClearNamespace(ctx, "ns-b"); err != nil {
		t.Fatal(err)
	}
	if n, err := s.Count(ctx, "ns-b", ""); err != nil || n != 0 {
		t.Fatalf("after ClearNamespace: %d, %v", n, err)
	}
	if err := s.ClearNamespace(ctx, "ns-b"); err != nil {
		t.Fatalf("clearing twice: %v", err)
	}
}
