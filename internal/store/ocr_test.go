package store

import (
	"context"
	"testing"

	"github.com/weaviate/weaviate-go-client/v5/weaviate"

	"ragd"
)

// A chunk's OCR mark and page are written and come back with each hit.
func TestOCRMarkRoundTrips(t *testing.T) {
	ctx := context.Background()
	s, _ := openTestStore(t, "m", 8)
	cs := chunks("doc1", "h1", "scanned invoice from zephyr logistics", "typed preface of the same report")
	cs[0].OCR, cs[0].Page = true, 2
	cs[1].Page = 1
	if err := s.Upsert(ctx, "ns", cs); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		query string
		ocr   bool
		page  int
	}{{"zephyr", true, 2}, {"preface", false, 1}} {
		hits, err := s.Search(ctx, "ns", ragd.ChunkQuery{Text: tc.query, Mode: ragd.ModeKeyword, Limit: 5})
		if err != nil {
			t.Fatal(err)
		}
		if len(hits) != 1 || hits[0].OCR != tc.ocr || hits[0].Page != tc.page {
			t.Errorf("%q: hits %+v, want one with ocr %v on page %d", tc.query, hits, tc.ocr, tc.page)
		}
	}
}

// A collection made before ragd marked OCR'd chunks gets the property when
// the store opens it; the chunks written before read as not OCR'd, new
// ones keep their mark.
func TestOpenAddsOCRPropertyToOlderCollection(t *testing.T) {
	ctx := context.Background()
	cfg, client := olderCollection(t, propOCR, "typed minutes of the board meeting")
	if n := countProperty(t, client, cfg.Collection, propOCR); n != 0 {
		t.Fatalf("the older collection already has %d ocr properties", n)
	}

	s, err := Open(ctx, cfg, "m", 8)
	if err != nil {
		t.Fatalf("open the older collection: %v", err)
	}
	if n := countProperty(t, client, cfg.Collection, propOCR); n != 1 {
		t.Fatalf("after Open: %d ocr properties, want 1", n)
	}
	after := chunks("doc1", "h1", "scanned minutes of the board meeting")
	after[0].OCR = true
	if err := s.Upsert(ctx, "ns", after); err != nil {
		t.Fatal(err)
	}
	hits, err := s.Search(ctx, "ns", ragd.ChunkQuery{Text: "minutes", Mode: ragd.ModeKeyword, Limit: 5})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	for _, h := range hits {
		got[h.DocumentID] = h.OCR
	}
	if len(got) != 2 || got["doc0"] || !got["doc1"] {
		t.Errorf("hits' ocr marks %v, want doc0 false and doc1 true", got)
	}
	if _, err := Open(ctx, cfg, "m", 8); err != nil {
		t.Fatalf("open a second time: %v", err)
	}
	if n := countProperty(t, client, cfg.Collection, propOCR); n != 1 {
		t.Fatalf("after the second Open: %d ocr properties, want 1", n)
	}
}

func countProperty(t *testing.T, client *weaviate.Client, class, name string) int {
	t.Helper()
	c, err := client.Schema().ClassGetter().WithClassName(class).Do(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, p := range c.Properties {
		if p.Name == name {
			n++
		}
	}
	return n
}
