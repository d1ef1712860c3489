package store

import (
	"context"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/weaviate/weaviate-go-client/v5/weaviate"
	"github.com/weaviate/weaviate/entities/models"

	"ragd"
	"ragd/internal/testkit/testenv"
)

// olderCollection makes the collection as an earlier ragd made it, without
// the property missing, holding one chunk of text written without it. It
// returns the store's config and a raw client;
// both collections go when the test ends.
func olderCollection(t *testing.T, missing, text string) (Config, *weaviate.Client) {
	t.Helper()
	ctx := context.Background()
	cfg := Config{URL: testenv.WeaviateURL(t), GRPCAddr: testenv.WeaviateGRPC(t),
		Collection: testenv.Unique(t, "T"), BatchSize: 50, Timeout: 20 * time.Second}
	u, err := url.Parse(cfg.URL)
	if err != nil {
		t.Fatal(err)
	}
	client, err := weaviate.NewClient(weaviate.Config{Host: u.Host, Scheme: u.Scheme})
	if err != nil {
		t.Fatal(err)
	}
	old := &Store{class: cfg.Collection}
	t.Cleanup(func() {
		_ = client.Schema().ClassDeleter().WithClassName(cfg.Collection).Do(context.Background())
		_ = client.Schema().ClassDeleter().WithClassName(old.imageClass()).Do(context.Background())
	})
	class := old.classDefinition("m", 8)
	var props []*models.Property
	for _, p := range class.Properties {
		if p.Name != missing {
			props = append(props, p)
		}
	}
	class.Properties = props
	if err := client.Schema().ClassCreator().WithClass(class).Do(ctx); err != nil {
		t.Fatal(err)
	}
	before := chunks("doc0", "h0", text)
	obj := old.object("ns", &before[0])
	delete(obj.Properties.(map[string]any), missing)
	if _, err := client.Batch().ObjectsBatcher().WithObjects(obj).Do(ctx); err != nil {
		t.Fatal(err)
	}
	return cfg, client
}

// A collection an earlier ragd made, whose chunks hold no access, is
// given the open access at start: a key with groups still finds what it
// found before, and the collection is marked so it is done once.
func TestOlderChunksGetAccess(t *testing.T) {
	ctx := context.Background()
	cfg, client := olderCollection(t, propAccess, "harbour charts of the northern coast")
	class, err := client.Schema().ClassGetter().WithClassName(cfg.Collection).Do(ctx)
	if err != nil {
		t.Fatal(err)
	}
	class.Description = strings.TrimSuffix(class.Description, accessMark) // as an earlier ragd described it
	if err := client.Schema().ClassUpdater().WithClass(class).Do(ctx); err != nil {
		t.Fatal(err)
	}
	s, err := Open(ctx, cfg, "m", 8)
	if err != nil {
		t.Fatal(err)
	}
	q := ragd.ChunkQuery{Text: "harbour charts", Mode: ragd.ModeKeyword, Limit: 5}
	hits, err := s.Search(ragd.WithAudience(ctx, ragd.GroupAudience([]string{"eng"})), "ns", q)
	if err != nil || len(hits) != 1 || hits[0].Access != nil {
		t.Fatalf("a group's search of the older chunk: %v %+v", err, hits)
	}
	class, err = client.Schema().ClassGetter().WithClassName(cfg.Collection).Do(ctx)
	if err != nil || !strings.HasSuffix(class.Description, accessMark) {
		t.Fatalf("collection not marked: %v %q", err, class.Description)
	}
}
