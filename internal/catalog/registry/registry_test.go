package registry_test

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/redis/go-redis/v9"

	"ragd"
	"ragd/internal/catalog/registry"
	"ragd/internal/platform/keyspace"
	"ragd/internal/testkit/testenv"
)

// fixture is a registry with its own key prefix, and the client beneath it.
type fixture struct {
	*registry.Registry
	rdb    *redis.Client
	prefix string
	keys   keyspace.Keys
}

func newFixture(t testing.TB, hooks ...redis.Hook) fixture {
	t.Helper()
	opts, err := redis.ParseURL(testenv.RedisURL(t))
	if err != nil {
		t.Fatal(err)
	}
	rdb := redis.NewClient(opts)
	for _, h := range hooks {
		rdb.AddHook(h)
	}
	prefix := "test:" + testenv.Unique(t, "R")
	t.Cleanup(func() {
		keys, _ := rdb.Keys(context.Background(), prefix+":*").Result()
		if len(keys) > 0 {
			_ = rdb.Del(context.Background(), keys...).Err()
		}
		_ = rdb.Close()
	})
	keys := keyspace.New(prefix)
	return fixture{registry.New(rdb, keys), rdb, prefix, keys}
}

func newRegistry(t testing.TB) *registry.Registry { return newFixture(t).Registry }

func (f fixture) orderKey(ns string) string { return f.keys.Order(ns) }

// members returns the namespace's order set, as source/id.
func (f fixture) members(t testing.TB, ns string) []string {
	t.Helper()
	m, err := f.rdb.ZRange(t.Context(), f.orderKey(ns), 0, -1).Result()
	if err != nil {
		t.Fatal(err)
	}
	for i := range m {
		m[i] = strings.ReplaceAll(m[i], "\x00", "/")
	}
	return m
}

// put records documents of namespace ns, source/id each.
func put(t testing.TB, r *registry.Registry, ns string, docs ...string) {
	t.Helper()
	for _, sd := range docs {
		src, id, _ := strings.Cut(sd, "/")
		d := ragd.Document{ID: id, Namespace: ns, Source: src, ContentHash: "h-" + sd}
		if err := r.Put(t.Context(), d); err != nil {
			t.Fatal(err)
		}
	}
}

// page returns a page as source/id, failing on an error or a wrong total.
func page(t testing.TB, r *registry.Registry, ns string, offset, limit, total int) []string {
	t.Helper()
	docs, n, err := r.Page(t.Context(), ns, offset, limit)
	if err != nil || n != total {
		t.Fatalf("page %d+%d of %s: total %d, %v; want total %d", offset, limit, ns, n, err, total)
	}
	got := []string{}
	for _, d := range docs {
		got = append(got, d.Source+"/"+d.ID)
	}
	return got
}

// Count agrees with Page without reading the documents, and Page's order is
// total: documents sharing a source are ordered by id.
func TestCountAndPageOrder(t *testing.T) {
	t.Parallel()
	r := newRegistry(t)
	ctx := t.Context()
	if n, err := r.Count(ctx, "empty"); err != nil || n != 0 {
		t.Fatalf("count of an unknown namespace: %d %v", n, err)
	}
	var want []string
	for i, src := range []string{"b", "a", "b", "c", "a", "b"} {
		sd := fmt.Sprintf("%s/id%d", src, 9-i)
		put(t, r, "ns", sd)
		want = append(want, sd)
	}
	slices.Sort(want)
	for range 3 {
		if got := page(t, r, "ns", 0, 100, 6); !slices.Equal(got, want) {
			t.Fatalf("page order %v, want %v", got, want)
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

// The order set follows every write: one member per document, at its source.
func TestOrderIndexFollowsWrites(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := t.Context()
	check := func(step string, want ...string) {
		t.Helper()
		if got := f.members(t, "ns"); !slices.Equal(got, want) {
			t.Fatalf("%s: order %q, want %q", step, got, want)
		}
	}
	put(t, f.Registry, "ns", "s1/a", "s0/b")
	check("put", "s0/b", "s1/a")
	if err := f.Put(ctx, ragd.Document{ID: "a", Namespace: "ns", Source: "s1", ContentHash: "new"}); err != nil {
		t.Fatal(err)
	}
	check("new version", "s0/b", "s1/a")
	put(t, f.Registry, "ns", "s2/a") // ids derive from sources, but Put does not rely on it
	check("new source", "s0/b", "s2/a")
	put(t, f.Registry, "other", "s9/z")
	if err := f.Delete(ctx, "ns", "b"); err != nil {
		t.Fatal(err)
	}
	if err := f.Delete(ctx, "ns", "unknown"); err != nil {
		t.Fatal(err)
	}
	check("delete", "s2/a")
	if err := f.ClearNamespace(ctx, "ns"); err != nil {
		t.Fatal(err)
	}
	if n, err := f.rdb.Exists(ctx, f.orderKey("ns")).Result(); err != nil || n != 0 {
		t.Fatalf("order set after a clear: exists %d %v", n, err)
	}
	if got := f.members(t, "other"); !slices.Equal(got, []string{"s9/z"}) {
		t.Fatalf("order of another namespace after a clear: %q", got)
	}
}

// Every page is the matching slice of the whole order.
func TestPage(t *testing.T) {
	t.Parallel()
	r := newRegistry(t)
	var all []string
	for i := range 9 {
		all = append(all, fmt.Sprintf("src%d/id%d", i%3, 9-i))
	}
	put(t, r, "ns", all...)
	slices.Sort(all)
	for offset := range len(all) + 2 {
		for limit := range len(all) + 2 {
			start := min(offset, len(all))
			want := all[start : start+min(limit, len(all)-start)]
			if got := page(t, r, "ns", offset, limit, len(all)); !slices.Equal(got, want) {
				t.Fatalf("page %d+%d: %v, want %v", offset, limit, got, want)
			}
		}
	}
	if got := page(t, r, "ns", 1<<62, 1<<62, len(all)); len(got) != 0 {
		t.Fatalf("page far past the end: %v", got)
	}
	if _, _, err := r.Page(t.Context(), "ns", -1, 3); err == nil {
		t.Fatal("negative offset accepted")
	}
}

// A namespace written before the order set existed is paged the same once it
// is rebuilt, also after a write since added a lone member.
func TestPageBackfill(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := t.Context()
	for i := range 20 {
		put(t, f.Registry, "ns", fmt.Sprintf("src%d/id%02d", i%4, 20-i))
	}
	pages := func(total int) (out [][]string) {
		for offset := 0; offset < total; offset += 7 {
			out = append(out, page(t, f.Registry, "ns", offset, 7, total))
		}
		return out
	}
	want := pages(20)
	if err := f.rdb.Del(ctx, f.orderKey("ns")).Err(); err != nil {
		t.Fatal(err)
	}
	if got := pages(20); !slices.EqualFunc(got, want, slices.Equal) {
		t.Fatalf("pages after a backfill: %v, want %v", got, want)
	}
	if n := len(f.members(t, "ns")); n != 20 {
		t.Fatalf("order set of %d after a backfill, want 20", n)
	}

	if err := f.rdb.Del(ctx, f.orderKey("ns")).Err(); err != nil {
		t.Fatal(err)
	}
	put(t, f.Registry, "ns", "src0/id00")
	all := slices.Concat(want...)
	all = append(all, "src0/id00")
	slices.Sort(all)
	if got := page(t, f.Registry, "ns", 0, 100, 21); !slices.Equal(got, all) {
		t.Fatalf("page after a write to an old namespace: %v, want %v", got, all)
	}
	if got := f.members(t, "ns"); !slices.Equal(got, all) {
		t.Fatalf("order set %v, want %v", got, all)
	}
}

// A page of an unknown namespace is empty and writes nothing.
func TestPageUnknownNamespace(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	for _, offset := range []int{0, 5} {
		if got := page(t, f.Registry, "nothing", offset, 10, 0); len(got) != 0 {
			t.Fatalf("page of an unknown namespace: %v", got)
		}
	}
	if keys, err := f.rdb.Keys(t.Context(), f.prefix+":*").Result(); err != nil || len(keys) != 0 {
		t.Fatalf("keys after paging an unknown namespace: %v %v", keys, err)
	}
}

// touchHook rewrites a document, unchanged, whenever a namespace's documents
// are read whole: every rebuild of the order set loses its race.
type touchHook struct{ other *redis.Client }

func (h touchHook) DialHook(next redis.DialHook) redis.DialHook { return next }

func (h touchHook) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		err := next(ctx, cmd)
		if c, ok := cmd.(*redis.MapStringStringCmd); ok && cmd.Name() == "hgetall" {
			key := fmt.Sprint(cmd.Args()[1])
			for id, raw := range c.Val() {
				h.other.HSet(ctx, key, id, raw)
				break
			}
		}
		return err
	}
}

func (h touchHook) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return next
}

// When writes keep invalidating the rebuild, Page still returns the right
// page, from the documents it read.
func TestPageRebuildRaced(t *testing.T) {
	t.Parallel()
	other := newFixture(t)
	f := newFixture(t, touchHook{other.rdb})
	all := []string{"c/1", "a/2", "b/3", "a/4"}
	put(t, f.Registry, "ns", all...)
	if err := f.rdb.Del(t.Context(), f.orderKey("ns")).Err(); err != nil {
		t.Fatal(err)
	}
	if got := page(t, f.Registry, "ns", 1, 2, 4); !slices.Equal(got, []string{"a/4", "b/3"}) {
		t.Fatalf("page: %v", got)
	}
	if got := f.members(t, "ns"); len(got) != 0 {
		t.Fatalf("order set rebuilt despite the races: %v", got)
	}
}

// Pages of an old namespace read while it is written are ordered, and the
// order set ends up matching the documents.
func TestPageConcurrentWrites(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := t.Context()
	for i := range 30 {
		put(t, f.Registry, "ns", fmt.Sprintf("old%d/o%02d", i%5, i))
	}
	if err := f.rdb.Del(ctx, f.orderKey("ns")).Err(); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for w := range 2 { // writers own distinct documents, as the document lock ensures
		wg.Go(func() {
			for i := range 40 {
				id := fmt.Sprintf("w%d-%d", w, i%8)
				var err error
				if i%3 == 2 {
					err = f.Delete(ctx, "ns", id)
				} else {
					err = f.Put(ctx, ragd.Document{ID: id, Namespace: "ns", Source: fmt.Sprintf("new%d", i%8), ContentHash: fmt.Sprint(i)})
				}
				if err != nil {
					t.Error(err)
					return
				}
				if i%4 == 0 {
					if err := f.Delete(ctx, "ns", fmt.Sprintf("o%02d", w*15+i/4)); err != nil {
						t.Error(err)
						return
					}
				}
			}
		})
	}
	for range 2 {
		wg.Go(func() {
			for range 40 {
				docs, _, err := f.Page(ctx, "ns", 0, 1000)
				if err != nil {
					t.Error(err)
					return
				}
				if !slices.IsSortedFunc(docs, func(a, b ragd.Document) int {
					return cmp.Or(strings.Compare(a.Source, b.Source), strings.Compare(a.ID, b.ID))
				}) {
					t.Errorf("page out of order: %v", docs)
					return
				}
			}
		})
	}
	wg.Wait()
	raw, err := f.rdb.HGetAll(ctx, f.keys.Documents("ns")).Result()
	if err != nil {
		t.Fatal(err)
	}
	got := page(t, f.Registry, "ns", 0, 1000, len(raw))
	if !slices.IsSorted(got) || len(got) != len(raw) {
		t.Fatalf("final page %v of %d documents", got, len(raw))
	}
	if m := f.members(t, "ns"); !slices.Equal(m, got) {
		t.Fatalf("order set %v, want %v", m, got)
	}
}

// BenchmarkPage reads a page of 100 from the middle of 10,000 documents.
// "backfill" rebuilds the order set first, as the first page of a namespace
// written before it existed does.
func BenchmarkPage(b *testing.B) {
	f := newFixture(b)
	ctx := b.Context()
	for i := range 10000 {
		d := ragd.Document{ID: fmt.Sprintf("%032x", i), Namespace: "ns",
			Source:      fmt.Sprintf("file:///corpus/dir%02d/document-%05d.md", i%37, i),
			ContentHash: fmt.Sprintf("%064x", i), RawHash: fmt.Sprintf("%064x", i+1),
			Title: "A title", Tags: []string{"a", "b"}, Chunks: 12}
		if err := f.Put(ctx, d); err != nil {
			b.Fatal(err)
		}
	}
	run := func(b *testing.B) {
		docs, total, err := f.Page(ctx, "ns", 5000, 100)
		if err != nil || len(docs) != 100 || total != 10000 {
			b.Fatalf("%d documents of %d: %v", len(docs), total, err)
		}
	}
	b.Run("indexed", func(b *testing.B) {
		for b.Loop() {
			run(b)
		}
	})
	b.Run("backfill", func(b *testing.B) {
		for b.Loop() {
			b.StopTimer()
			if err := f.rdb.Del(ctx, f.orderKey("ns")).Err(); err != nil {
				b.Fatal(err)
			}
			b.StartTimer()
			run(b)
		}
	})
}
