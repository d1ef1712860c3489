package sources_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"ragd"
	"ragd/internal/catalog/sources"
	"ragd/internal/platform/keyspace"
	"ragd/internal/platform/kv"
	"ragd/internal/testkit/testenv"
)

func store(t *testing.T) *sources.Store {
	rdb := testenv.RedisClient(t, testenv.RedisOrMemory(t))
	return &sources.Store{KV: kv.New(rdb), Keys: keyspace.New("test:" + testenv.Unique(t, "S"))}
}

// A source is recorded with the audience of who added it (which its
// answers never show), listed, changed in one transaction and deleted.
func TestSourceRecords(t *testing.T) {
	t.Parallel()
	st, ctx := store(t), context.Background()
	viewer := []string{"eng"}
	src := ragd.Source{ID: sources.NewID(), Namespace: "docs", Kind: ragd.SourceGit, URL: "https://example.org/r.git",
		Viewer: &viewer, CreatedAt: time.Now().UTC()}
	if err := st.Create(ctx, src); err != nil {
		t.Fatal(err)
	}
	if err := st.Create(ctx, src); ragd.KindOf(err) != ragd.KindConflict {
		t.Fatalf("the same id twice: %v", err)
	}
	got, err := st.Get(ctx, src.ID)
	if err != nil || got.URL != src.URL || got.Viewer == nil || (*got.Viewer)[0] != "eng" {
		t.Fatalf("Get: %+v %v", got, err)
	}
	refused := errors.New("refused")
	if _, err := st.Update(ctx, src.ID, func(s *ragd.Source) error { s.Ref = "x"; return refused }); !errors.Is(err, refused) {
		t.Fatalf("a refused change: %v", err)
	}
	if _, err := st.Update(ctx, src.ID, func(s *ragd.Source) error { s.Commit = "abc"; return nil }); err != nil {
		t.Fatal(err)
	}
	list, err := st.List(ctx)
	if err != nil || len(list) != 1 || list[0].Commit != "abc" || list[0].Ref != "" {
		t.Fatalf("List: %+v %v", list, err)
	}
	if err := st.Delete(ctx, src.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Get(ctx, src.ID); ragd.KindOf(err) != ragd.KindNotFound {
		t.Fatalf("Get after Delete: %v", err)
	}
	// An id of another form names no key.
	for _, id := range []string{"", "src_", "src_../../x", "src_0123456789ABCDEF", "other"} {
		if _, err := st.Get(ctx, id); ragd.KindOf(err) != ragd.KindNotFound {
			t.Errorf("Get(%q): %v", id, err)
		}
	}
}
