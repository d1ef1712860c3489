package vocab

import (
	"context"
	"testing"

	"github.com/redis/go-redis/v9"

	"ragd/internal/testenv"
)

func testStore(t *testing.T) (*Store, redis.UniversalClient) {
	opts, err := redis.ParseURL(testenv.RedisURL(t))
	if err != nil {
		t.Fatal(err)
	}
	rdb := redis.NewClient(opts)
	t.Cleanup(func() { rdb.Close() })
	s := New(rdb, "test:"+testenv.Unique(t, "V"))
	t.Cleanup(func() { _ = s.Clear(context.Background(), "ns") })
	return s, rdb
}

// versions fakes the registry's current hashes.
func versions(m map[string]string) Versions {
	return func(_ context.Context, _ string, ids []string) (map[string]string, error) {
		out := map[string]string{}
		for _, id := range ids {
			out[id] = m[id]
		}
		return out, nil
	}
}

func TestStoreLearnsCurrentDocumentsOnly(t *testing.T) {
	ctx := context.Background()
	s, rdb := testStore(t)
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(s.Learn(ctx, "ns", "a", "h1", []string{"Heap > Intro\nA heap is a tree", "the heap invariant"}))
	must(s.Learn(ctx, "ns", "b", "h2", []string{"Readers read"}))
	must(s.Learn(ctx, "ns", "gone", "h3", []string{"deleted document words"}))
	must(s.Learn(ctx, "other", "c", "h4", []string{"another namespace"}))
	t.Cleanup(func() { _ = s.Clear(ctx, "other") })

	// b is being re-indexed (its current version is h9): its old entry is
	// skipped but kept; gone is no longer in the registry: dropped.
	st, err := s.Load(ctx, "ns", versions(map[string]string{"a": "h1", "b": "h9"}))
	must(err)
	if st.Chunks() != 2 || st.DF("heap") != 2 || st.DF("tree") != 1 || st.DF("intro") != 1 {
		t.Errorf("stats of a: chunks %d, df heap %d tree %d intro %d", st.Chunks(), st.DF("heap"), st.DF("tree"), st.DF("intro"))
	}
	if st.Has("readers") || st.Has("deleted") || st.Has("another") {
		t.Error("words of a stale version, a deleted document or another namespace counted")
	}
	fields, err := rdb.HKeys(ctx, s.key("ns")).Result()
	must(err)
	if len(fields) != 2 {
		t.Errorf("entries left = %v, want a and b (gone pruned)", fields)
	}

	// A cleared namespace (nothing current) loses its statistics at the next load.
	st, err = s.Load(ctx, "ns", versions(nil))
	must(err)
	if st.Chunks() != 0 || len(st.Words()) != 0 {
		t.Errorf("cleared namespace still has %d chunks, %d words", st.Chunks(), len(st.Words()))
	}
	if n, _ := rdb.Exists(ctx, s.key("ns")).Result(); n != 0 {
		t.Error("statistics of a cleared namespace left in Redis")
	}
}
