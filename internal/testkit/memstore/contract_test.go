package memstore_test

import (
	"context"
	"fmt"
	"math"
	"slices"
	"testing"
	"time"

	"ragd"
	"ragd/internal/store"
	"ragd/internal/testkit/memstore"
	"ragd/internal/testkit/testenv"
)

// The contract: what the services rely on of a chunk store, checked on the
// fake and on the real Weaviate store alike, so the fake that service
// tests use behaves as the store does.
func TestContract(t *testing.T) {
	stores := map[string]func(t *testing.T) ragd.ChunkStore{
		"memory": func(*testing.T) ragd.ChunkStore { return memstore.New() },
		"weaviate": func(t *testing.T) ragd.ChunkStore {
			cfg := store.Config{URL: testenv.WeaviateURL(t), GRPCAddr: testenv.WeaviateGRPC(t),
				Collection: testenv.Unique(t, "T"), BatchSize: 50, Timeout: 20 * time.Second}
			s, err := store.Open(context.Background(), cfg, "contract", dim)
			if err != nil {
				t.Fatal(err)
			}
			return s
		},
	}
	checks := []struct {
		name string
		run  func(t *testing.T, s ragd.ChunkStore)
	}{
		{"reads", checkReads}, {"scans", checkScans}, {"keyword", checkKeyword}, {"vector and hybrid", checkVector},
		{"filters", checkFilters}, {"deletes", checkDeletes}, {"images", checkImages}, {"empty namespace", checkEmpty},
	}
	for name, open := range stores {
		t.Run(name, func(t *testing.T) {
			s := open(t)
			for _, c := range checks {
				t.Run(c.name, func(t *testing.T) { c.run(t, s) })
			}
		})
	}
}

const dim = 8

// axis is a unit vector mostly along axis i.
func axis(i int) []float32 {
	v := make([]float32, dim)
	for j := range v {
		v[j] = 0.05
	}
	v[i%dim] = 1
	var n float64
	for _, x := range v {
		n += float64(x * x)
	}
	for j := range v {
		v[j] /= float32(math.Sqrt(n))
	}
	return v
}

// doc is a version of a document: one chunk per text, chunk i pointing
// along axis i.
func doc(id, hash string, texts ...string) []ragd.Chunk {
	out := make([]ragd.Chunk, len(texts))
	for i, text := range texts {
		out[i] = ragd.Chunk{ID: ragd.ChunkID(id, hash, i), DocumentID: id, ContentHash: hash, Index: i, Text: text,
			Source: "file:///" + id, SourceType: ragd.SourceText, Path: id + " > Part", Level: 1, Page: i + 1,
			Summary: "about " + id, OCR: i%2 == 1, Related: "related" + id, Tags: []string{"t-" + id},
			Timestamp: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), Vector: axis(i)}
	}
	return out
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func upsert(t *testing.T, s ragd.ChunkStore, ns string, chunks ...[]ragd.Chunk) {
	t.Helper()
	must(t, s.Upsert(context.Background(), ns, slices.Concat(chunks...)))
}

func ids[T any](xs []T, id func(T) string) []string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = id(x)
	}
	return out
}

func hitIDs(h []ragd.Hit) []string { return ids(h, func(h ragd.Hit) string { return h.ID }) }

// A read returns every stored field but the vector and the related words;
// an id is replaced by a second write; counts follow.
func checkReads(t *testing.T, s ragd.ChunkStore) {
	ctx := context.Background()
	const ns = "reads"
	v1 := doc("a", "h1", "first", "second", "third")
	upsert(t, s, ns, v1, doc("b", "h1", "other"))
	changed := v1[1]
	changed.Text = "second, rewritten"
	upsert(t, s, ns, []ragd.Chunk{changed})

	got, err := s.Chunk(ctx, ns, v1[1].ID)
	must(t, err)
	want := changed
	want.Namespace, want.Vector, want.Related = ns, nil, ""
	if got == nil || fmt.Sprint(*got) != fmt.Sprint(want) {
		t.Fatalf("Chunk = %+v\nwant    %+v", got, want)
	}
	for _, id := range []string{ragd.ChunkID("a", "h1", 9), "not-a-uuid"} {
		if c, err := s.Chunk(ctx, ns, id); err != nil || c != nil {
			t.Fatalf("Chunk(%s) = %v, %v; want nil, nil", id, c, err)
		}
	}
	if n, _ := s.Count(ctx, ns, ""); n != 4 {
		t.Fatalf("Count = %d, want 4", n)
	}
	if n, _ := s.Count(ctx, ns, "a"); n != 3 {
		t.Fatalf("Count(a) = %d, want 3", n)
	}
	if n, _ := s.CountVersion(ctx, ns, "a", "h1"); n != 3 {
		t.Fatalf("CountVersion(a, h1) = %d, want 3", n)
	}
	page, err := s.DocumentChunks(ctx, ns, "a", "h1", 1, 1)
	must(t, err)
	if len(page) != 1 || page[0].Index != 1 || page[0].Text != changed.Text || page[0].Vector != nil {
		t.Fatalf("DocumentChunks(from 1, 1) = %+v", page)
	}
	page, _ = s.DocumentChunks(ctx, ns, "a", "h1", 0, 10)
	if got := ids(page, func(c ragd.Chunk) string { return c.Text }); !slices.Equal(got, []string{"first", changed.Text, "third"}) {
		t.Fatalf("DocumentChunks order = %v", got)
	}
	names, _ := s.Namespaces(ctx)
	if !slices.Contains(names, ns) {
		t.Fatalf("Namespaces = %v, want %s among them", names, ns)
	}
}

// A scan pages in id order with vectors, tags and related words.
func checkScans(t *testing.T, s ragd.ChunkStore) {
	ctx := context.Background()
	const ns = "scans"
	all := doc("s", "h", "one", "two", "three", "four", "five")
	upsert(t, s, ns, all)
	var seen []ragd.Chunk
	for after := ""; ; {
		page, err := s.ScanChunks(ctx, ns, after, 2)
		must(t, err)
		if len(page) == 0 {
			break
		}
		if len(page) > 2 {
			t.Fatalf("a page of 2 has %d", len(page))
		}
		seen = append(seen, page...)
		after = page[len(page)-1].ID
	}
	got := ids(seen, func(c ragd.Chunk) string { return c.ID })
	want := ids(all, func(c ragd.Chunk) string { return c.ID })
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Fatalf("scan order = %v\nwant %v", got, want)
	}
	for _, c := range seen {
		if len(c.Vector) != dim || c.Related != "relateds" || !slices.Equal(c.Tags, []string{"t-s"}) {
			t.Fatalf("scanned chunk lacks its vector, related words or tags: %+v", c)
		}
	}
}

// A keyword search ranks the chunk that holds the query's rare words first,
// honours the limit, and searches the related words only when asked.
func checkKeyword(t *testing.T, s ragd.ChunkStore) {
	ctx := context.Background()
	const ns = "keyword"
	upsert(t, s, ns, doc("k", "h", "the lighthouse keeper trims the wick", "a harbour with boats and nets",
		"boats, nets and a lighthouse", "bread and butter"))
	hits, err := s.Search(ctx, ns, ragd.ChunkQuery{Text: "lighthouse wick", Mode: ragd.ModeKeyword, Limit: 10})
	must(t, err)
	if len(hits) != 2 || hits[0].Text != "the lighthouse keeper trims the wick" || hits[0].Score < hits[1].Score {
		t.Fatalf("keyword hits = %+v", hits)
	}
	if hits[0].Vector != nil {
		t.Fatal("a hit carries a vector it was not asked for")
	}
	if hits, _ := s.Search(ctx, ns, ragd.ChunkQuery{Text: "boats", Mode: ragd.ModeKeyword, Limit: 1}); len(hits) != 1 {
		t.Fatalf("limit 1 gave %d hits", len(hits))
	}
	if hits, _ := s.Search(ctx, ns, ragd.ChunkQuery{Text: "relatedk", Mode: ragd.ModeKeyword, Limit: 10}); len(hits) != 0 {
		t.Fatalf("a plain search matched the related words: %v", hitIDs(hits))
	}
	hits, _ = s.Search(ctx, ns, ragd.ChunkQuery{Text: "relatedk", Mode: ragd.ModeKeyword, Related: true, Limit: 10})
	if len(hits) != 4 {
		t.Fatalf("a related-words search found %d of 4", len(hits))
	}
	hits, _ = s.Search(ctx, ns, ragd.ChunkQuery{Text: "part", Mode: ragd.ModeKeyword, Limit: 10})
	if len(hits) != 4 {
		t.Fatalf("the heading trail is not searched: %d hits", len(hits))
	}
}

// A vector search ranks by closeness; a hybrid search with alpha 1 follows
// the vector, with alpha 0 the words; WithVectors returns them.
func checkVector(t *testing.T, s ragd.ChunkStore) {
	ctx := context.Background()
	const ns = "vector"
	all := doc("v", "h", "alpha words", "beta words", "gamma words")
	upsert(t, s, ns, all)
	hits, err := s.Search(ctx, ns, ragd.ChunkQuery{Vector: axis(2), Mode: ragd.ModeVector, Limit: 3, WithVectors: true})
	must(t, err)
	if len(hits) != 3 || hits[0].ID != all[2].ID || len(hits[0].Vector) != dim || hits[0].Score <= hits[1].Score {
		t.Fatalf("vector hits = %+v", hits)
	}
	for _, alpha := range []float64{1, 0} {
		for _, ranked := range []bool{false, true} {
			q := ragd.ChunkQuery{Text: "beta", Vector: axis(0), Mode: ragd.ModeHybrid, Alpha: alpha, Limit: 3, RankedFusion: ranked}
			hits, err := s.Search(ctx, ns, q)
			must(t, err)
			want := all[0].ID // the vector's
			if alpha == 0 {
				want = all[1].ID // the words'
			}
			if len(hits) == 0 || hits[0].ID != want {
				t.Fatalf("hybrid alpha %g ranked %v: top = %v, want %s", alpha, ranked, hitIDs(hits), want)
			}
		}
	}
}

// Each filter keeps the chunks matching any of its values; filters combine.
func checkFilters(t *testing.T, s ragd.ChunkStore) {
	ctx := context.Background()
	const ns = "filters"
	md := doc("m", "h", "shared word")
	md[0].SourceType = ragd.SourceMarkdown
	x, y := doc("x", "h", "shared word"), doc("y", "h", "shared word")
	x[0].Access, y[0].Access = []string{"eng"}, []string{"eng", "fin"}
	upsert(t, s, ns, x, y, md)
	find := func(q ragd.ChunkQuery, as ...ragd.Audience) []string {
		q.Text, q.Mode, q.Limit = "shared", ragd.ModeKeyword, 10
		ctx := ctx
		for _, a := range as { // the store applies the context's audience
			ctx = ragd.WithAudience(ctx, a)
		}
		hits, err := s.Search(ctx, ns, q)
		must(t, err)
		docs := ids(hits, func(h ragd.Hit) string { return h.DocumentID })
		slices.Sort(docs)
		return docs
	}
	eng, fin, none := ragd.GroupAudience([]string{"eng"}), ragd.GroupAudience([]string{"fin"}), ragd.GroupAudience(nil)
	for _, tc := range []struct {
		q    ragd.ChunkQuery
		as   []ragd.Audience
		want []string
	}{
		{ragd.ChunkQuery{}, nil, []string{"m", "x", "y"}},
		{ragd.ChunkQuery{}, []ragd.Audience{ragd.EveryDocument()}, []string{"m", "x", "y"}},
		{ragd.ChunkQuery{DocumentIDs: []string{"x", "m"}}, nil, []string{"m", "x"}},
		{ragd.ChunkQuery{Tags: []string{"t-y"}}, nil, []string{"y"}},
		{ragd.ChunkQuery{SourceTypes: []string{string(ragd.SourceMarkdown)}}, nil, []string{"m"}},
		{ragd.ChunkQuery{DocumentIDs: []string{"x", "y"}, Tags: []string{"t-y", "t-m"}}, nil, []string{"y"}},
		{ragd.ChunkQuery{}, []ragd.Audience{eng}, []string{"m", "x", "y"}},
		{ragd.ChunkQuery{}, []ragd.Audience{fin}, []string{"m", "y"}},
		{ragd.ChunkQuery{}, []ragd.Audience{none}, []string{"m"}},
		{ragd.ChunkQuery{}, []ragd.Audience{eng, none}, []string{"m"}}, // the last one set is the one applied
		{ragd.ChunkQuery{Tags: []string{"t-y", "t-m"}}, []ragd.Audience{ragd.GroupAudience([]string{"hr"})}, []string{"m"}},
	} {
		if got := find(tc.q, tc.as...); !slices.Equal(got, tc.want) {
			t.Fatalf("filter %+v as %+v: %v, want %v", tc.q, tc.as, got, tc.want)
		}
	}
	// Access is rewritten in place, and read back as written.
	if n, err := s.SetAccess(ctx, ns, "x", "h", []string{"fin"}); err != nil || n != 1 {
		t.Fatalf("SetAccess: %d %v", n, err)
	}
	if got := find(ragd.ChunkQuery{}, eng); !slices.Equal(got, []string{"m", "y"}) {
		t.Fatalf("after sharing x with fin only, eng finds %v", got)
	}
	c, err := s.Chunk(ctx, ns, x[0].ID)
	if err != nil || c == nil || !slices.Equal(c.Access, []string{"fin"}) {
		t.Fatalf("chunk x reads back with access %+v (%v)", c, err)
	}
	page, err := s.ScanChunks(ctx, ns, "", 10)
	must(t, err)
	for _, c := range page {
		if want := map[string][]string{"x": {"fin"}, "y": {"eng", "fin"}}[c.DocumentID]; !slices.Equal(c.Access, want) {
			t.Fatalf("scanned chunk of %s has access %v, want %v", c.DocumentID, c.Access, want)
		}
	}
}

// DeleteStale keeps one version (chunks and images), DeleteDocument drops
// them all, ClearNamespace drops the namespace from the list.
func checkDeletes(t *testing.T, s ragd.ChunkStore) {
	ctx := context.Background()
	const ns = "deletes"
	upsert(t, s, ns, doc("d", "old", "a", "b", "c"), doc("d", "new", "a", "b"), doc("e", "h", "keep"))
	must(t, s.UpsertImages(ctx, ns, []ragd.Image{image("d", "old", 0, "old picture"), image("d", "new", 0, "new picture")}))
	n, err := s.DeleteStale(ctx, ns, "d", "new")
	must(t, err)
	if n != 3 {
		t.Fatalf("DeleteStale deleted %d, want 3", n)
	}
	if old, _ := s.CountVersion(ctx, ns, "d", "old"); old != 0 {
		t.Fatalf("%d chunks of the old version survived", old)
	}
	images, _ := s.ScanImages(ctx, ns, "", 10)
	if len(images) != 1 || images[0].ContentHash != "new" {
		t.Fatalf("images after DeleteStale = %+v", images)
	}
	if n, _ := s.DeleteDocument(ctx, ns, "d"); n != 2 {
		t.Fatalf("DeleteDocument deleted %d, want 2", n)
	}
	if images, _ := s.ScanImages(ctx, ns, "", 10); len(images) != 0 {
		t.Fatalf("images after DeleteDocument = %+v", images)
	}
	if n, _ := s.Count(ctx, ns, ""); n != 1 {
		t.Fatalf("Count after deletes = %d, want 1", n)
	}
	must(t, s.ClearNamespace(ctx, ns))
	names, _ := s.Namespaces(ctx)
	if n, _ := s.Count(ctx, ns, ""); n != 0 || slices.Contains(names, ns) {
		t.Fatalf("after ClearNamespace: count %d, namespaces %v", n, names)
	}
}

func image(docID, hash string, i int, caption string) ragd.Image {
	return ragd.Image{ID: ragd.ChunkID(docID+"#image", hash, i), DocumentID: docID, ContentHash: hash, Source: "file:///" + docID,
		Index: i, Page: 1, Position: i, Caption: caption, Nearby: "text near " + caption, Format: "png", Width: 4, Height: 3,
		Vector: axis(i)}
}

// Image search matches the caption, keeps to the document filter and
// returns no vector.
func checkImages(t *testing.T, s ragd.ChunkStore) {
	ctx := context.Background()
	const ns = "images"
	must(t, s.UpsertImages(ctx, ns, []ragd.Image{image("p", "h", 0, "a red lighthouse"), image("p", "h", 1, "green fields"),
		image("q", "h", 0, "a lighthouse at night")}))
	hits, err := s.SearchImages(ctx, ns, ragd.ChunkQuery{Text: "green fields", Vector: axis(1), Alpha: 0.5, Limit: 10})
	must(t, err)
	if len(hits) == 0 || hits[0].Caption != "green fields" || hits[0].Vector != nil || hits[0].Width != 4 {
		t.Fatalf("image hits = %+v", hits)
	}
	hits, _ = s.SearchImages(ctx, ns, ragd.ChunkQuery{Text: "lighthouse", Vector: axis(0), Alpha: 0.5, Limit: 10, DocumentIDs: []string{"q"}})
	for _, h := range hits {
		if h.DocumentID != "q" {
			t.Fatalf("the document filter let %s through", h.DocumentID)
		}
	}
	if len(hits) == 0 {
		t.Fatal("no image of document q found")
	}
	// Images keep to the access filter, and are rewritten with their document.
	if _, err := s.SetAccess(ctx, ns, "q", "h", []string{"eng"}); err != nil {
		t.Fatal(err)
	}
	docs := func(groups ...string) []string {
		hits, err := s.SearchImages(ragd.WithAudience(ctx, ragd.GroupAudience(groups)), ns,
			ragd.ChunkQuery{Text: "lighthouse", Vector: axis(0), Alpha: 0.5, Limit: 10})
		must(t, err)
		out := ids(hits, func(h ragd.ImageHit) string { return h.DocumentID })
		slices.Sort(out)
		return slices.Compact(out)
	}
	if got := docs("fin"); !slices.Equal(got, []string{"p"}) {
		t.Fatalf("fin's image search found documents %v, want [p]", got)
	}
	if got := docs("eng"); !slices.Equal(got, []string{"p", "q"}) {
		t.Fatalf("eng's image search found documents %v, want [p q]", got)
	}
}

// A namespace that never got anything answers empty, without an error.
func checkEmpty(t *testing.T, s ragd.ChunkStore) {
	ctx := context.Background()
	const ns = "nothing"
	if hits, err := s.Search(ctx, ns, ragd.ChunkQuery{Text: "x", Mode: ragd.ModeKeyword, Limit: 3}); err != nil || len(hits) != 0 {
		t.Fatalf("Search = %v, %v", hits, err)
	}
	if hits, err := s.SearchImages(ctx, ns, ragd.ChunkQuery{Text: "x", Vector: axis(0), Limit: 3}); err != nil || len(hits) != 0 {
		t.Fatalf("SearchImages = %v, %v", hits, err)
	}
	if n, err := s.Count(ctx, ns, ""); err != nil || n != 0 {
		t.Fatalf("Count = %d, %v", n, err)
	}
	if c, err := s.ScanChunks(ctx, ns, "", 5); err != nil || len(c) != 0 {
		t.Fatalf("ScanChunks = %v, %v", c, err)
	}
	if c, err := s.DocumentChunks(ctx, ns, "d", "h", 0, 5); err != nil || len(c) != 0 {
		t.Fatalf("DocumentChunks = %v, %v", c, err)
	}
	must(t, s.ClearNamespace(ctx, ns))
}
