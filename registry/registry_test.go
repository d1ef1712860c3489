package registry_test

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/redis/go-redis/v9"

	"ragd"
	"ragd/internal/testenv"
	"ragd/registry"
)

func newRegistry(t *testing.T) *registry.Registry {
	t.Helper()
	opts, err := redis.ParseURL(testenv.RedisURL(t))
	if err != nil {
		t.Fatal(err)
	}
	rdb := redis.NewClient(opts)
	prefix := "test:" + testenv.Unique(t, "R")
	t.Cleanup(func() {
		keys, _ := rdb.Keys(context.Background(), prefix+":*").Result()
		if len(keys) > 0 {
			_ = rdb.Del(context.Background(), keys...).Err()
		}
		_ = rdb.Close()
	})
	return registry.New(rdb, prefix)
}

// Count agrees with List without reading the documents, and List's order is
// total: documents sharing a source are ordered by id.
func TestCountAndListOrder(t *testing.T) {
	t.Parallel()
	r := newRegistry(t)
	ctx := t.Context()
	if n, err := r.Count(ctx, "empty"); err != nil || n != 0 {
		t.Fatalf("count of an unknown namespace: %d %v", n, err)
	}
	var want []string
	for i, src := range []string{"b", "a", "b", "c", "a", "b"} {
		d := ragd.Document{ID: fmt.Sprintf("id%d", 9-i), Namespace: "ns", Source: src, ContentHash: fmt.Sprintf("h%d", i)}
		if err := r.Put(ctx, d); err != nil {
			t.Fatal(err)
		}
		want = append(want, src+"/"+d.ID)
	}
	slices.Sort(want)
	for range 3 { // hash order varies; the list's must not
		docs, err := r.List(ctx, "ns")
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, d := range docs {
			got = append(got, d.Source+"/"+d.ID)
		}
		if !slices.Equal(got, want) {
			t.Fatalf("list order %v, want %v", got, want)
		}
	}
	if n, err := r.Count(ctx, "ns"); err != nil || n != 6 {
		t.Fatalf("count: %d %v, want 6", n, err)
	}
	if err := r.Delete(ctx, "ns", "id9"); err != nil {
		t.Fatal(err)
	}
	if n, err := r.Count(ctx, "ns"); err != nil || n != 5 {
		t.Fatalf("count after a delete: %d %v, want 5", n, err)
	}
}
