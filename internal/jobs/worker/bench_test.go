package worker_test

import (
	"context"
	"fmt"
	"net/http"
	"path/filepath"
	"testing"
	"time"

	"github.com/go-openapi/strfmt"
	"github.com/weaviate/weaviate-go-client/v5/weaviate"
	"github.com/weaviate/weaviate-go-client/v5/weaviate/grpc"
	"github.com/weaviate/weaviate/entities/models"

	"ragd"
	"ragd/internal/testkit/stack"
	"ragd/internal/testkit/testenv"
)

// specChunks is the Go specification's chunks as document "spec".
func specChunks(b *testing.B, s *stack.Stack) []ragd.Chunk {
	chunks := s.SpecChunks(b)
	for i := range chunks {
		chunks[i].ID, chunks[i].DocumentID, chunks[i].ContentHash = ragd.ChunkID("spec", "h", i), "spec", "h"
		chunks[i].Source = "file:///go_spec.html"
	}
	return chunks
}

// BenchmarkWritePath compares ragd's store write (gRPC batch upsert through
// store.Upsert, then the stale-version delete every ingest runs) with a raw
// Weaviate gRPC batch import of the same objects and vectors, in the same
// run and alternating order. Target: ragd ≥ 0.7× raw.
func BenchmarkWritePath(b *testing.B) {
	cfg := stack.Config(b)
	s := stack.Start(b, cfg, false)
	chunks := specChunks(b, s)
	raw, err := weaviate.NewClient(weaviate.Config{Host: hostPort(cfg.Weaviate.URL), Scheme: "http",
		GrpcConfig: &grpc.Config{Host: cfg.Weaviate.GRPCAddr}})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	rawImport := func(tenant string) {
		for start := 0; start < len(chunks); start += cfg.Weaviate.BatchSize {
			batch := chunks[start:min(start+cfg.Weaviate.BatchSize, len(chunks))]
			objs := make([]*models.Object, len(batch))
			for i, c := range batch {
				objs[i] = &models.Object{Class: cfg.Weaviate.Collection, ID: strfmt.UUID(c.ID), Tenant: tenant, Vector: c.Vector,
					Properties: map[string]any{"text": c.Text, "document_id": c.DocumentID, "source": c.Source,
						"source_type": string(c.SourceType), "content_hash": c.ContentHash, "chunk_index": c.Index,
						"path": c.Path, "level": c.Level, "summary": c.Summary, "kb_name": tenant, "page": c.Page,
						"timestamp": c.Timestamp.UTC().Format(time.RFC3339Nano), "tags": c.Tags}}
			}
			if _, err := raw.Batch().ObjectsBatcher().WithObjects(objs...).Do(ctx); err != nil {
				b.Fatal(err)
			}
		}
	}
	ragdWrite := func(tenant string) {
		if err := s.Chunks.Upsert(ctx, tenant, chunks); err != nil {
			b.Fatal(err)
		}
		if _, err := s.Chunks.DeleteStale(ctx, tenant, "spec", "h"); err != nil {
			b.Fatal(err)
		}
	}
	// Warm both paths (tenant creation, connections) outside the timing.
	rawImport("warm-raw")
	ragdWrite("warm-ragd")

	var rawTime, ragdTime time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		tenants := [2]string{fmt.Sprintf("raw-%d", i), fmt.Sprintf("ragd-%d", i)}
		if i%2 == 0 {
			rawTime += timed(func() { rawImport(tenants[0]) })
			ragdTime += timed(func() { ragdWrite(tenants[1]) })
		} else {
			ragdTime += timed(func() { ragdWrite(tenants[1]) })
			rawTime += timed(func() { rawImport(tenants[0]) })
		}
	}
	b.StopTimer()
	n := float64(len(chunks) * b.N)
	rawRate, ragdRate := n/rawTime.Seconds(), n/ragdTime.Seconds()
	b.ReportMetric(rawRate, "raw_chunks/s")
	b.ReportMetric(ragdRate, "ragd_chunks/s")
	b.ReportMetric(ragdRate/rawRate, "ragd/raw")
	fmt.Printf("write path: %d chunks × %d rounds: raw gRPC import %.0f chunks/s, ragd %.0f chunks/s, ratio %.2f (target ≥ 0.70)\n",
		len(chunks), b.N, rawRate, ragdRate, ragdRate/rawRate)
}

// BenchmarkIngestEndToEnd measures a whole ingest through REST and the
// worker: load, parse, chunk, embed (offline GloVe), write, registry.
func BenchmarkIngestEndToEnd(b *testing.B) {
	root := b.TempDir()
	doc := filepath.Join(root, "go_spec.html")
	testenv.CopyFile(b, testenv.GorootFile(b, "doc/go_spec.html"), doc)
	s := stack.Start(b, stack.Config(b, root), true)
	total := 0
	b.ResetTimer()
	start := time.Now()
	for i := 0; i < b.N; i++ {
		resp := s.Do(b, http.MethodPost, "/tools/rag_index", map[string]any{"file_path": doc, "kb_name": fmt.Sprintf("e2e-%d", i), "wait": true})
		if resp.Status != http.StatusOK {
			b.Fatalf("%d %s", resp.Status, resp.Body)
		}
		total += int(resp.JSON["chunks_indexed"].(float64))
	}
	elapsed := time.Since(start)
	b.ReportMetric(float64(total)/elapsed.Seconds(), "chunks/s")
	fmt.Printf("ingest end to end: %d chunks in %s: %.0f chunks/s\n", total, elapsed.Round(time.Millisecond), float64(total)/elapsed.Seconds())
}

func timed(f func()) time.Duration {
	start := time.Now()
	f()
	return time.Since(start)
}

func hostPort(u string) string {
	if i := len("http://"); len(u) > i && u[:i] == "http://" {
		return u[i:]
	}
	return u
}
