package stack

import (
	"context"
	"os"
	"testing"
	"time"

	"ragd"
	"ragd/internal/ingest"
	"ragd/internal/testkit/testenv"
)

// SpecChunks chunks and embeds the Go specification with the stack's
// embedder: real text and real vectors, for benchmarks of the write paths.
// Callers set the ids, document and source they need.
func (s *Stack) SpecChunks(tb testing.TB) []ragd.Chunk {
	tb.Helper()
	data, err := os.ReadFile(testenv.GorootFile(tb, "doc/go_spec.html"))
	if err != nil {
		tb.Fatal(err)
	}
	loaded, err := ingest.Parse(data, ragd.SourceHTML, "go_spec.html")
	if err != nil {
		tb.Fatal(err)
	}
	pieces := ingest.Chunk(loaded, ingest.ChunkOptions{Tokens: 256, Overlap: 32})
	texts := make([]string, len(pieces))
	for i, p := range pieces {
		texts[i] = p.Path + "\n" + p.Text
	}
	vectors, err := s.Search.Embedder.Embed(context.Background(), texts)
	if err != nil {
		tb.Fatal(err)
	}
	chunks := make([]ragd.Chunk, len(pieces))
	for i, p := range pieces {
		chunks[i] = ragd.Chunk{Index: i, Text: p.Text, Path: p.Path, Level: p.Level, Summary: p.Summary,
			SourceType: ragd.SourceHTML, Timestamp: time.Now().UTC(), Vector: vectors[i], Tags: []string{}}
	}
	return chunks
}
