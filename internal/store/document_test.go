package store

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"ragd"
)

// A document's chunks of one version come back in chunk_index order, page
// by page from an index, without the chunks of its other version or of
// another document; a namespace never written has none.
func TestDocumentChunksInOrder(t *testing.T) {
	ctx := context.Background()
	s, _ := openTestStore(t, "m", 8)
	texts := make([]string, 13)
	for i := range texts {
		texts[i] = fmt.Sprintf("part %d", i)
	}
	if err := s.Upsert(ctx, "ns", chunks("doc1", "h1", texts...)); err != nil {
		t.Fatal(err)
	}
	if err := s.Upsert(ctx, "ns", append(chunks("doc1", "h0", "old version"), chunks("doc2", "h2", "other document")...)); err != nil {
		t.Fatal(err)
	}
	var got []ragd.Chunk
	for from := 0; ; {
		page, err := s.DocumentChunks(ctx, "ns", "doc1", "h1", from, 4)
		if err != nil {
			t.Fatal(err)
		}
		if len(page) == 0 {
			break
		}
		got = append(got, page...)
		from = page[len(page)-1].Index + 1
	}
	if len(got) != len(texts) {
		t.Fatalf("read %d chunks, want %d", len(got), len(texts))
	}
	for i, c := range got {
		if c.Index != i || c.Text != texts[i] || c.DocumentID != "doc1" || c.ContentHash != "h1" || c.Path != "Doc > Part" {
			t.Fatalf("chunk %d: %+v", i, c)
		}
	}
	if none, err := s.DocumentChunks(ctx, "never-written", "doc1", "h1", 0, 10); err != nil || len(none) != 0 {
		t.Fatalf("namespace never written: %v %v", none, err)
	}
}

// DocumentVectors reads a version's chunks with the vectors they were
// written with; DocumentChunks leaves them out.
func TestDocumentVectorsAsWritten(t *testing.T) {
	ctx := context.Background()
	s, _ := openTestStore(t, "m", 8)
	written := chunks("doc1", "h1", "alpha", "beta", "gamma")
	if err := s.Upsert(ctx, "ns", written); err != nil {
		t.Fatal(err)
	}
	got, err := s.DocumentVectors(ctx, "ns", "doc1", "h1", 0, 10)
	if err != nil || len(got) != len(written) {
		t.Fatalf("DocumentVectors: %d chunks, %v", len(got), err)
	}
	for i, c := range got {
		if c.Index != i || !slices.Equal(c.Vector, written[i].Vector) {
			t.Fatalf("chunk %d: vector %v, written %v", i, c.Vector, written[i].Vector)
		}
	}
	plain, err := s.DocumentChunks(ctx, "ns", "doc1", "h1", 0, 10)
	if err != nil || len(plain) != len(written) || plain[0].Vector != nil {
		t.Fatalf("DocumentChunks: %d chunks, vector %v, %v", len(plain), plain[0].Vector, err)
	}
}

// A chunk is read by its id within its namespace only; an unknown or
// malformed id is no chunk, not an error.
func TestChunkByID(t *testing.T) {
	ctx := context.Background()
	s, _ := openTestStore(t, "m", 8)
	written := chunks("doc1", "h1", "alpha", "beta")
	if err := s.Upsert(ctx, "ns", written); err != nil {
		t.Fatal(err)
	}
	c, err := s.Chunk(ctx, "ns", written[1].ID)
	if err != nil || c == nil {
		t.Fatalf("chunk: %v %v", c, err)
	}
	if c.Text != "beta" || c.Index != 1 || c.DocumentID != "doc1" || c.ContentHash != "h1" || c.Path != "Doc > Part" ||
		c.Level != 1 || len(c.Tags) != 1 || c.Tags[0] != "t1" || c.Namespace != "ns" {
		t.Fatalf("chunk read back as %+v", c)
	}
	for _, tc := range []struct{ ns, id string }{
		{"ns", ragd.ChunkID("doc1", "h1", 9)}, {"other", written[1].ID}, {"ns", "not-a-uuid"}, {"never-written", written[0].ID},
	} {
		if c, err := s.Chunk(ctx, tc.ns, tc.id); err != nil || c != nil {
			t.Errorf("Chunk(%s, %s) = %+v, %v; want nil, nil", tc.ns, tc.id, c, err)
		}
	}
}
