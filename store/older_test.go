package store

import (
	"context"
	"net/url"
	"testing"
	"time"

	"github.com/weaviate/weaviate-go-client/v5/weaviate"
	"github.com/weaviate/weaviate/entities/models"

	"ragd/internal/testenv"
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
