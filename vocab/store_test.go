package vocab

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"

	"ragd/internal/testenv"
	"ragd/keyspace"
)

func testStore(t *testing.T) (*Store, redis.UniversalClient) {
	opts, err := redis.ParseURL(testenv.RedisURL(t))
	if err != nil {
		t.Fatal(err)
	}
	rdb := redis.NewClient(opts)
	t.Cleanup(func() { rdb.Close() })
	s := New(rdb, keyspace.New("test:"+testenv.Unique(t, "V")))
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

// Learn and Forget keep the namespace's totals equal to the sum of its
// documents' entries: a new version replaces the old one's counts, a
// forgotten document's words go, other namespaces stay apart.
func TestStoreTotalsFollowLearnAndForget(t *testing.T) {
	ctx := context.Background()
	s, rdb := testStore(t)
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(s.Learn(ctx, "ns", "a", "h1", []string{"Heap > Intro\nA heap is a tree", "the heap invariant"}))
	must(s.Learn(ctx, "ns", "b", "h2", []string{"Readers read", "readers again"}))
	must(s.Learn(ctx, "ns", "gone", "h3", []string{"deleted document words"}))
	must(s.Learn(ctx, "other", "c", "h4", []string{"another namespace"}))
	t.Cleanup(func() { _ = s.Clear(ctx, "other") })
	must(s.Learn(ctx, "ns", "b", "h5", []string{"Writers write"})) // a new version of b
	must(s.Forget(ctx, "ns", "gone"))
	must(s.Forget(ctx, "ns", "never-learned"))

	st, err := s.Load(ctx, "ns", versions(nil)) // totals exist: the registry is not asked
	must(err)
	if st.Chunks() != 3 || st.DF("heap") != 2 || st.DF("tree") != 1 || st.DF("intro") != 1 || st.DF("writers") != 1 {
		t.Errorf("stats: chunks %d, df heap %d tree %d intro %d writers %d",
			st.Chunks(), st.DF("heap"), st.DF("tree"), st.DF("intro"), st.DF("writers"))
	}
	if st.Has("readers") || st.Has("deleted") || st.Has("another") {
		t.Error("words of a replaced version, a forgotten document or another namespace counted")
	}
	// Forgetting everything leaves no word behind, not zero or negative counts.
	must(s.Forget(ctx, "ns", "a"))
	must(s.Forget(ctx, "ns", "b"))
	st, err = s.Load(ctx, "ns", versions(nil))
	must(err)
	if st.Chunks() != 0 || len(st.Words()) != 0 {
		t.Errorf("after forgetting every document: %d chunks, words %v", st.Chunks(), st.Words())
	}
	must(s.Clear(ctx, "ns"))
	if n, _ := rdb.Exists(ctx, s.key("ns"), s.totalsKey("ns")).Result(); n != 0 {
		t.Error("statistics of a cleared namespace left in Redis")
	}
}

// Entries written by a ragd from before totals existed are summed into
// totals once, at the first load: only documents the registry still holds
// count, the others' entries are deleted, and a document learned before
// that load is included.
func TestStoreRebuildsTotalsFromOlderEntries(t *testing.T) {
	ctx := context.Background()
	s, rdb := testStore(t)
	legacy := func(id, hash string, chunks int, df map[string]int) {
		t.Helper()
		body, _ := json.Marshal(entry{Hash: hash, Chunks: chunks, DF: df})
		if err := rdb.HSet(ctx, s.key("ns"), id, body).Err(); err != nil {
			t.Fatal(err)
		}
	}
	legacy("a", "h1", 2, map[string]int{"heap": 2, "tree": 1})
	legacy("gone", "h2", 1, map[string]int{"deleted": 1})
	if err := rdb.HSet(ctx, s.key("ns"), "broken", "{not json").Err(); err != nil {
		t.Fatal(err)
	}
	// Learned while totals are missing: the entry is written, totals are
	// left to the rebuild.
	if err := s.Learn(ctx, "ns", "b", "h3", []string{"heap readers"}); err != nil {
		t.Fatal(err)
	}
	if n, _ := rdb.Exists(ctx, s.totalsKey("ns")).Result(); n != 0 {
		t.Fatal("totals started over entries they do not cover")
	}
	st, err := s.Load(ctx, "ns", versions(map[string]string{"a": "h1", "b": "h3", "broken": "h4"}))
	if err != nil {
		t.Fatal(err)
	}
	if st.Chunks() != 3 || st.DF("heap") != 3 || st.DF("readers") != 1 || st.Has("deleted") {
		t.Errorf("rebuilt stats: chunks %d, heap %d, readers %d, deleted %v", st.Chunks(), st.DF("heap"), st.DF("readers"), st.Has("deleted"))
	}
	fields, _ := rdb.HKeys(ctx, s.key("ns")).Result()
	sort.Strings(fields)
	if !reflect.DeepEqual(fields, []string{"a", "b"}) {
		t.Errorf("entries after the rebuild: %v, want a and b (gone and broken deleted)", fields)
	}
	// From now on totals follow every change.
	if err := s.Forget(ctx, "ns", "a"); err != nil {
		t.Fatal(err)
	}
	st, _ = s.Load(ctx, "ns", versions(nil))
	if st.Chunks() != 1 || st.DF("heap") != 1 || st.Has("tree") {
		t.Errorf("after forgetting a: chunks %d, heap %d, tree %v", st.Chunks(), st.DF("heap"), st.Has("tree"))
	}
}

// Whatever the order of learns and forgets, the totals equal the sum of
// the entries left.
func TestStoreTotalsMatchEntries(t *testing.T) {
	ctx := context.Background()
	s, rdb := testStore(t)
	r := rand.New(rand.NewPCG(7, 7))
	words := strings.Fields("heap tree reader writer buffer timeout cancel context deadline error wrap join")
	for i := range 300 {
		id := fmt.Sprint("d", r.IntN(20))
		if r.IntN(4) == 0 {
			if err := s.Forget(ctx, "ns", id); err != nil {
				t.Fatal(err)
			}
			continue
		}
		texts := make([]string, 1+r.IntN(4))
		for c := range texts {
			for range 1 + r.IntN(6) {
				texts[c] += words[r.IntN(len(words))] + " "
			}
		}
		if err := s.Learn(ctx, "ns", id, fmt.Sprint("h", i), texts); err != nil {
			t.Fatal(err)
		}
	}
	all, err := rdb.HGetAll(ctx, s.key("ns")).Result()
	if err != nil {
		t.Fatal(err)
	}
	chunks, df := 0, map[string]int{}
	for _, raw := range all {
		var e entry
		if err := json.Unmarshal([]byte(raw), &e); err != nil {
			t.Fatal(err)
		}
		chunks += e.Chunks
		for w, n := range e.DF {
			df[w] += n
		}
	}
	st, err := s.Load(ctx, "ns", versions(nil))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]int{}
	for _, w := range st.Words() {
		got[w] = st.DF(w)
	}
	if st.Chunks() != chunks || !reflect.DeepEqual(got, df) {
		t.Errorf("totals: %d chunks %v; entries sum to %d chunks %v", st.Chunks(), got, chunks, df)
	}
}

// BenchmarkLoad reads the statistics of a namespace of 10,000 documents
// (5 chunks of 150 words each): the cost every search pays once after
// each ingest.
func BenchmarkLoad(b *testing.B) {
	ctx := context.Background()
	opts, err := redis.ParseURL(testenv.RedisURL(b))
	if err != nil {
		b.Fatal(err)
	}
	rdb := redis.NewClient(opts)
	defer rdb.Close()
	s := New(rdb, keyspace.New("bench:"+testenv.Unique(b, "V")))
	defer s.Clear(ctx, "ns")
	r := rand.New(rand.NewPCG(1, 1))
	for d := range 10000 {
		texts := make([]string, 5)
		for c := range texts {
			var sb strings.Builder
			for range 150 {
				fmt.Fprintf(&sb, "w%dx ", int(r.ExpFloat64()*2000)%50000)
			}
			texts[c] = sb.String()
		}
		if err := s.Learn(ctx, "ns", fmt.Sprint(d), "h", texts); err != nil {
			b.Fatal(err)
		}
	}
	b.ResetTimer()
	for range b.N {
		st, err := s.Load(ctx, "ns", versions(nil))
		if err != nil || st.Chunks() != 50000 {
			b.Fatalf("load: %v, %d chunks", err, st.Chunks())
		}
	}
}

// Any name may be searched: loading a namespace that has no vocabulary
// writes nothing.
func TestStoreLoadOfUnknownNamespaceWritesNothing(t *testing.T) {
	ctx := context.Background()
	s, rdb := testStore(t)
	st, err := s.Load(ctx, "nobody", versions(nil))
	if err != nil || st.Chunks() != 0 || len(st.Words()) != 0 {
		t.Fatalf("load of an unknown namespace: %v, %d chunks", err, st.Chunks())
	}
	if n, _ := rdb.Exists(ctx, s.key("nobody"), s.totalsKey("nobody")).Result(); n != 0 {
		t.Error("loading an unknown namespace left keys in Redis")
	}
}

// Learned reads the recorded version's hash from the head of its entry,
// however many words the entry counts, and "" for none or an unreadable one.
func TestLearned(t *testing.T) {
	ctx := context.Background()
	s, rdb := testStore(t)
	hash := strings.Repeat("ab", 32) // a content hash: 64 hex digits
	var words []string
	for i := range 5000 {
		words = append(words, fmt.Sprintf("word%d", i))
	}
	if err := s.Learn(ctx, "ns", "big", hash, []string{strings.Join(words, " ")}); err != nil {
		t.Fatal(err)
	}
	for id, want := range map[string]string{"big": hash, "unknown": ""} {
		got, err := s.Learned(ctx, "ns", id)
		if err != nil || got != want {
			t.Errorf("Learned(%s) = %q, %v; want %q", id, got, err, want)
		}
	}
	rdb.HSet(ctx, s.key("ns"), "garbled", "not json")
	if got, err := s.Learned(ctx, "ns", "garbled"); err != nil || got != "" {
		t.Errorf("Learned(garbled) = %q, %v; want \"\" (learn again)", got, err)
	}
}

// A document's vocabulary read with Entries and restored elsewhere gives
// the same statistics as learning it there.
func TestEntriesRestore(t *testing.T) {
	ctx := context.Background()
	s, _ := testStore(t)
	t.Cleanup(func() { _ = s.Clear(ctx, "copy"); _ = s.Clear(ctx, "learned") })
	texts := []string{"Heap > Intro\nA heap is a tree", "the heap invariant"}
	if err := s.Learn(ctx, "ns", "a", "h1", texts); err != nil {
		t.Fatal(err)
	}
	got, err := s.Entries(ctx, "ns", []string{"a", "missing"})
	if err != nil || len(got) != 1 || got["a"].Hash != "h1" || got["a"].Chunks != 2 || got["a"].DF["heap"] != 2 {
		t.Fatalf("entries: %+v, %v", got, err)
	}
	if err := s.Restore(ctx, "copy", "a2", got["a"]); err != nil {
		t.Fatal(err)
	}
	if err := s.Learn(ctx, "learned", "a2", "h1", texts); err != nil {
		t.Fatal(err)
	}
	restored, err := s.Load(ctx, "copy", versions(nil))
	if err != nil {
		t.Fatal(err)
	}
	learned, _ := s.Load(ctx, "learned", versions(nil))
	if restored.Chunks() != learned.Chunks() || !reflect.DeepEqual(restored.Words(), learned.Words()) || restored.DF("heap") != 2 {
		t.Fatalf("restored %d chunks %v, learned %d chunks %v", restored.Chunks(), restored.Words(), learned.Chunks(), learned.Words())
	}
	if h, _ := s.Learned(ctx, "copy", "a2"); h != "h1" {
		t.Fatalf("restored entry's version: %q", h)
	}
}
