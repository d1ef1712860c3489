package ingest

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"ragd"
	"ragd/internal/ingest/document"
)

// A document of many short sections passes the token estimate (it has few
// tokens) but makes a chunk per section: the chunker stops one past the
// bound and says so; under the bound, ChunkBounded is Chunk.
func TestChunkBoundedStopsAtTheBound(t *testing.T) {
	var md strings.Builder
	for i := range 1000 {
		fmt.Fprintf(&md, "# Section %d\n\nword\n\n", i)
	}
	doc, err := Parse([]byte(md.String()), ragd.SourceMarkdown, "outline.md")
	if err != nil {
		t.Fatal(err)
	}
	opt := ChunkOptions{Tokens: 64}
	_, err = ChunkBounded(doc, opt, Bounds{MaxChunks: 100})
	if ragd.KindOf(err) != ragd.KindTooLarge || !strings.Contains(fmt.Sprint(err), "at least 101 chunks, more than ingest.max_document_chunks (100)") {
		t.Fatalf("1000 sections within 100 chunks: %v", err)
	}
	got, err := ChunkBounded(doc, opt, Bounds{MaxChunks: 1000, MaxTextBytes: TextBytes(doc)})
	if want := Chunk(doc, opt); err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("within the bounds: %d pieces, %v; Chunk made %d", len(got), err, len(want))
	}
}

// Text whose tokens alone need more chunks than the bound is refused
// before it is chunked, with the estimate; text over the byte bound
// before either.
func TestChunkBoundedRefusesEarly(t *testing.T) {
	doc := &document.Loaded{Blocks: []document.Block{{Kind: document.BlockParagraph, Text: strings.Repeat("a\n", 10_000)}}}
	_, err := ChunkBounded(doc, ChunkOptions{Tokens: 100}, Bounds{MaxChunks: 50})
	if !strings.Contains(fmt.Sprint(err), "at least 100 chunks, more than ingest.max_document_chunks (50)") {
		t.Fatalf("10,000 tokens in 50 chunks of 100: %v", err)
	}
	_, err = ChunkBounded(doc, ChunkOptions{Tokens: 100}, Bounds{MaxChunks: 50, MaxTextBytes: 19_999})
	if ragd.KindOf(err) != ragd.KindTooLarge || !strings.Contains(fmt.Sprint(err), "20000 bytes of text, more than ingest.max_document_text_bytes (19999)") {
		t.Fatalf("20,000 bytes within 19,999: %v", err)
	}
}
