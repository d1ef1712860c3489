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

	"ragd/internal/platform/keyspace"
	"ragd/internal/testkit/testenv"
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

// chunkStore stands in for the chunk store a Previous reads: each
// version's counts, by namespace, document and hash.
type chunkStore map[string]Counts

func (c chunkStore) previous(ns, id string) Previous {
	return func(_ context.Context, hash string) (Counts, error) { return c[ns+"/"+id+"/"+hash], nil }
}

// learn writes version hash of a document (its counts into the stand-in
// store, as its chunks) and learns it.
func (c chunkStore) learn(t testing.TB, s *Store, ns, id, hash string, texts ...string) {
	t.Helper()
	counts := CountTexts(texts)
	c[ns+"/"+id+"/"+hash] = counts
	if err := s.Learn(context.Background(), ns, id, hash, counts, c.previous(ns, id)); err != nil {
		t.Fatal(err)
	}
}

func (c chunkStore) forget(t testing.TB, s *Store, ns, id string) {
	t.Helper()
	if err := s.Forget(context.Background(), ns, id, c.previous(ns, id)); err != nil {
		t.Fatal(err)
	}
}

// Learn and Forget keep the namespace's totals equal to the sum of its
// documents' current counts: a new version replaces the old one's counts
// (recounted from the store), a forgotten document's words go, other
// namespaces stay apart. Per document Redis holds only the version.
func TestStoreTotalsFollowLearnAndForget(t *testing.T) {
	ctx := context.Background()
	s, rdb := testStore(t)
	store := chunkStore{}
	store.learn(t, s, "ns", "a", "h1", "Heap > Intro\nA heap is a tree", "the heap invariant")
	store.learn(t, s, "ns", "b", "h2", "Readers read", "readers again")
	store.learn(t, s, "ns", "gone", "h3", "deleted document words")
	store.learn(t, s, "other", "c", "h4", "another namespace")
	t.Cleanup(func() { _ = s.Clear(ctx, "other") })
	store.learn(t, s, "ns", "b", "h5", "Writers write") // a new version of b
	store.forget(t, s, "ns", "gone")
	store.forget(t, s, "ns", "never-learned")

	st, err := s.Load(ctx, "ns", versions(nil)) // totals exist: the registry is not asked
	if err != nil {
		t.Fatal(err)
	}
	if st.Chunks() != 3 || st.DF("heap") != 2 || st.DF("tree") != 1 || st.DF("intro") != 1 || st.DF("writers") != 1 {
		t.Errorf("stats: chunks %d, df heap %d tree %d intro %d writers %d",
			st.Chunks(), st.DF("heap"), st.DF("tree"), st.DF("intro"), st.DF("writers"))
	}
	if st.Has("readers") || st.Has("deleted") || st.Has("another") {
		t.Error("words of a replaced version, a forgotten document or another namespace counted")
	}
	if rec, _ := rdb.HGet(ctx, s.key("ns"), "b").Result(); rec != "h5" {
		t.Errorf("record of b: %q, want its version alone", rec)
	}
	// Forgetting everything leaves no word behind, not zero or negative counts.
	store.forget(t, s, "ns", "a")
	store.forget(t, s, "ns", "b")
	st, err = s.Load(ctx, "ns", versions(nil))
	if err != nil {
		t.Fatal(err)
	}
	if st.Chunks() != 0 || len(st.Words()) != 0 {
		t.Errorf("after forgetting every document: %d chunks, words %v", st.Chunks(), st.Words())
	}
	if err := s.Clear(ctx, "ns"); err != nil {
		t.Fatal(err)
	}
	if n, _ := rdb.Exists(ctx, s.key("ns"), s.totalsKey("ns")).Result(); n != 0 {
		t.Error("statistics of a cleared namespace left in Redis")
	}
}

// Learning the version already recorded asks the store nothing and
// changes nothing; a record moved by another writer (one that lost the
// document's lock) refuses the change.
func TestStoreLearnsOnce(t *testing.T) {
	ctx := context.Background()
	s, rdb := testStore(t)
	store := chunkStore{}
	store.learn(t, s, "ns", "a", "h1", "heap tree")
	asked := 0
	counting := func(ctx context.Context, hash string) (Counts, error) { asked++; return store["ns/a/"+hash], nil }
	if err := s.Learn(ctx, "ns", "a", "h1", CountTexts([]string{"heap tree"}), counting); err != nil || asked != 0 {
		t.Fatalf("learning the recorded version again: %v, store asked %d times", err, asked)
	}
	st, _ := s.Load(ctx, "ns", versions(nil))
	if st.Chunks() != 1 || st.DF("heap") != 1 {
		t.Fatalf("after learning twice: %d chunks, heap %d", st.Chunks(), st.DF("heap"))
	}
	// Another writer moves the record between this one's read and its script.
	moving := func(ctx context.Context, hash string) (Counts, error) {
		rdb.HSet(ctx, s.key("ns"), "a", "h9")
		return store["ns/a/"+hash], nil
	}
	if err := s.Learn(ctx, "ns", "a", "h2", CountTexts([]string{"reader"}), moving); err == nil || !strings.Contains(err.Error(), "changed meanwhile") {
		t.Fatalf("learn over a moved record: %v", err)
	}
	if st, _ := s.Load(ctx, "ns", versions(nil)); st.Has("reader") || st.DF("heap") != 1 {
		t.Fatal("a refused learn moved the totals")
	}
}

// An entry an earlier ragd wrote (the version with its counts) is used as
// it is: a new version subtracts the entry's counts without asking the
// store, and leaves the version alone as the record.
func TestStoreReplacesOlderEntries(t *testing.T) {
	ctx := context.Background()
	s, rdb := testStore(t)
	store := chunkStore{}
	store.learn(t, s, "ns", "b", "h0", "unrelated words") // totals exist
	body, _ := json.Marshal(entry{Hash: "h1", Chunks: 2, DF: map[string]int{"heap": 2, "tree": 1}})
	rdb.HSet(ctx, s.key("ns"), "a", body)
	rdb.HIncrBy(ctx, s.totalsKey("ns"), "heap", 2)
	rdb.HIncrBy(ctx, s.totalsKey("ns"), "tree", 1)
	rdb.HIncrBy(ctx, s.totalsKey("ns"), chunksField, 2)
	if h, _ := s.Learned(ctx, "ns", "a"); h != "h1" {
		t.Fatalf("Learned of an older entry: %q", h)
	}
	never := func(context.Context, string) (Counts, error) {
		t.Error("the store was asked for counts an older entry carries")
		return Counts{}, nil
	}
	if err := s.Learn(ctx, "ns", "a", "h2", CountTexts([]string{"reader writer"}), never); err != nil {
		t.Fatal(err)
	}
	st, _ := s.Load(ctx, "ns", versions(nil))
	if st.Chunks() != 2 || st.Has("heap") || st.Has("tree") || st.DF("reader") != 1 {
		t.Errorf("after replacing an older entry: %d chunks, heap %v tree %v reader %d", st.Chunks(), st.Has("heap"), st.Has("tree"), st.DF("reader"))
	}
	if rec, _ := rdb.HGet(ctx, s.key("ns"), "a").Result(); rec != "h2" {
		t.Errorf("record after the change: %q", rec)
	}
}

// Entries written by a ragd from before totals existed are summed into
// totals once, at the first load: only documents the registry still holds
// count, the others' entries are deleted, and a document learned before
// that load is included.
func TestStoreRebuildsTotalsFromOlderEntries(t *testing.T) {
	ctx := context.Background()
	s, rdb := testStore(t)
	store := chunkStore{}
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
	// Learned while totals are missing: the record is written with its
	// counts, totals are left to the rebuild.
	store.learn(t, s, "ns", "b", "h3", "heap readers")
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
	store.forget(t, s, "ns", "a")
	st, _ = s.Load(ctx, "ns", versions(nil))
	if st.Chunks() != 1 || st.DF("heap") != 1 || st.Has("tree") {
		t.Errorf("after forgetting a: chunks %d, heap %d, tree %v", st.Chunks(), st.DF("heap"), st.Has("tree"))
	}
}

// Whatever the order of learns and forgets, the totals equal the sum of
// the counts of the versions recorded.
func TestStoreTotalsMatchEntries(t *testing.T) {
	ctx := context.Background()
	s, rdb := testStore(t)
	store := chunkStore{}
	r := rand.New(rand.NewPCG(7, 7))
	words := strings.Fields("heap tree reader writer buffer timeout cancel context deadline error wrap join")
	for i := range 300 {
		id := fmt.Sprint("d", r.IntN(20))
		if r.IntN(4) == 0 {
			store.forget(t, s, "ns", id)
			continue
		}
		texts := make([]string, 1+r.IntN(4))
		for c := range texts {
			for range 1 + r.IntN(6) {
				texts[c] += words[r.IntN(len(words))] + " "
			}
		}
		store.learn(t, s, "ns", id, fmt.Sprint("h", i), texts...)
	}
	all, err := rdb.HGetAll(ctx, s.key("ns")).Result()
	if err != nil {
		t.Fatal(err)
	}
	chunks, df := 0, map[string]int{}
	for id, hash := range all {
		c := store["ns/"+id+"/"+hash]
		chunks += c.Chunks
		for w, n := range c.DF {
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
		t.Errorf("totals: %d chunks %v; recorded versions sum to %d chunks %v", st.Chunks(), got, chunks, df)
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
		if err := s.Learn(ctx, "ns", fmt.Sprint(d), "h", CountTexts(texts), nil); err != nil {
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

// Learned reads the recorded version: a record of ours is the hash; an
// earlier ragd's entry gives it from its head, however many words the
// entry counts; none or an unreadable entry is "".
func TestLearned(t *testing.T) {
	ctx := context.Background()
	s, rdb := testStore(t)
	hash := strings.Repeat("ab", 32) // a content hash: 64 hex digits
	var words []string
	for i := range 5000 {
		words = append(words, fmt.Sprintf("word%d", i))
	}
	if err := s.Learn(ctx, "ns", "ours", hash, CountTexts([]string{strings.Join(words, " ")}), nil); err != nil {
		t.Fatal(err)
	}
	body, _ := json.Marshal(entry{Hash: hash, Chunks: 1, DF: map[string]int{"a": 1}})
	rdb.HSet(ctx, s.key("ns"), "older", body)
	rdb.HSet(ctx, s.key("ns"), "garbled", "{not json")
	for id, want := range map[string]string{"ours": hash, "older": hash, "unknown": "", "garbled": ""} {
		got, err := s.Learned(ctx, "ns", id)
		if err != nil || got != want {
			t.Errorf("Learned(%s) = %q, %v; want %q", id, got, err, want)
		}
	}
	if n, _ := rdb.HStrLen(ctx, s.key("ns"), "ours").Result(); n != int64(len(hash)) {
		t.Errorf("a record of 5,000 words takes %d bytes, want the hash alone", n)
	}
}
