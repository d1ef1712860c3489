package store

import (
	"context"
	"testing"

	"ragd"

	"github.com/weaviate/weaviate-go-client/v5/weaviate"
	"github.com/weaviate/weaviate/entities/models"
)

// A Related query searches the related words alone, by BM25: it finds the
// chunk a thesaurus related "precedence" to and not the one that says it,
// while an ordinary keyword query finds only the latter.
func TestRelatedQuerySearchesOnlyRelatedWords(t *testing.T) {
	ctx := context.Background()
	s, _ := openTestStore(t, "m", 8)

	related := chunks("doc1", "h1", "each task has a priority that decides its order")
	related[0].Related = "antecedence precedence"
	says := chunks("doc2", "h2", "precedence rules decide the order of operators")
	if err := s.Upsert(ctx, "ns", append(related, says...)); err != nil {
		t.Fatal(err)
	}

	for _, tc := range []struct {
		related bool
		want    string
	}{{true, "doc1"}, {false, "doc2"}} {
		hits, err := s.Search(ctx, "ns", ragd.ChunkQuery{Text: "precedence", Mode: ragd.ModeKeyword, Related: tc.related, Limit: 10})
		if err != nil {
			t.Fatalf("related=%v: %v", tc.related, err)
		}
		if len(hits) != 1 || hits[0].DocumentID != tc.want {
			t.Errorf("related=%v: hits %v, want only %s", tc.related, hitDocs(hits), tc.want)
		}
	}
}

// A collection made before ragd stored related words gets the property
// when the store opens it: searchable, written by Upsert and found by a
// Related query, while the chunks written before keep answering ordinary
// queries. Opening it again changes nothing.
func TestOpenAddsRelatedPropertyToOlderCollection(t *testing.T) {
	ctx := context.Background()
	// The collection as an earlier ragd made it, holding one chunk.
	cfg, client := olderCollection(t, propRelated, "precedence rules decide the order of operators")
	if hasRelated(t, client, cfg.Collection) != 0 {
		t.Fatal("the older collection already has the related property")
	}

	s, err := Open(ctx, cfg, "m", 8)
	if err != nil {
		t.Fatalf("open the older collection: %v", err)
	}
	if n := hasRelated(t, client, cfg.Collection); n != 1 {
		t.Fatalf("after Open: %d related properties, want 1", n)
	}

	after := chunks("doc1", "h1", "each task has a priority that decides its order")
	after[0].Related = "precedence"
	if err := s.Upsert(ctx, "ns", after); err != nil {
		t.Fatal(err)
	}
	hits, err := s.Search(ctx, "ns", ragd.ChunkQuery{Text: "precedence", Mode: ragd.ModeKeyword, Related: true, Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) != 1 || hits[0].DocumentID != "doc1" {
		t.Errorf("related search: hits %v, want only doc1", hitDocs(hits))
	}
	hits, err = s.Search(ctx, "ns", ragd.ChunkQuery{Text: "precedence", Mode: ragd.ModeKeyword, Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) != 1 || hits[0].DocumentID != "doc0" {
		t.Errorf("keyword search: hits %v, want only the older doc0", hitDocs(hits))
	}

	if _, err := Open(ctx, cfg, "m", 8); err != nil {
		t.Fatalf("open a second time: %v", err)
	}
	if n := hasRelated(t, client, cfg.Collection); n != 1 {
		t.Fatalf("after the second Open: %d related properties, want 1", n)
	}
}

// hasRelated counts the collection's related properties, checking each is
// BM25-searchable with word tokenization.
func hasRelated(t *testing.T, client *weaviate.Client, class string) int {
	t.Helper()
	c, err := client.Schema().ClassGetter().WithClassName(class).Do(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, p := range c.Properties {
		if p.Name != propRelated {
			continue
		}
		n++
		if p.Tokenization != models.PropertyTokenizationWord || p.IndexSearchable == nil || !*p.IndexSearchable {
			t.Errorf("related property: tokenization %q, searchable %v", p.Tokenization, p.IndexSearchable)
		}
	}
	return n
}

func hitDocs(hits []ragd.Hit) []string {
	docs := make([]string, len(hits))
	for i, h := range hits {
		docs[i] = h.DocumentID
	}
	return docs
}
