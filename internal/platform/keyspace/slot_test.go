package keyspace_test

import (
	"testing"

	"ragd/internal/platform/keyspace"
)

// The slots Redis Cluster's specification and CLUSTER KEYSLOT give.
func TestSlot(t *testing.T) {
	for key, want := range map[string]int{
		"123456789":            0x31C3, // the specification's CRC16 check value
		"foo":                  12182,
		"{user1000}.following": 3443, // the tag alone is hashed
		"{user1000}.followers": 3443,
		"user1000":             3443,
		"foo{}{bar}":           8363, // an empty first tag: the whole key
		"foo{{bar}}zap":        4015, // the tag is "{bar"
		"{bar":                 4015,
	} {
		if got := keyspace.Slot(key); got != want {
			t.Errorf("Slot(%q) = %d, want %d", key, got, want)
		}
	}
}

// What a script or a transaction touches together shares a slot: all of a
// namespace's keys, and a job's control record with its Asynq task.
func TestKeysOfOneNamespaceShareASlot(t *testing.T) {
	k := keyspace.New("p")
	for _, ns := range []string{"docs", "a", "kb-2"} {
		want := keyspace.Slot(k.Documents(ns))
		for _, key := range []string{k.Current(ns), k.ContentHashes(ns), k.RawHashes(ns), k.Order(ns), k.Epoch(ns),
			k.DocumentLock(ns, "doc1"), k.Vocabulary(ns), k.VocabularyTotals(ns), k.Generation(ns),
			k.CachedResult([]string{ns}, "3+1", "rag_search", "ab")} {
			if keyspace.Slot(key) != want {
				t.Errorf("%s is in slot %d, %s in %d", key, keyspace.Slot(key), k.Documents(ns), want)
			}
		}
	}
	j := k.Jobs("ragd")
	want := keyspace.Slot(j.Task("id1"))
	for _, key := range []string{j.Control("id1"), j.Cancelled(), j.Index("docs"), j.Namespaces(), j.Directories(),
		j.Settled(), j.Backfilled(), j.Replicated(), j.Counts(), j.Counted(), j.CountedAt(), j.Recount(), j.Ended("id1")} {
		if keyspace.Slot(key) != want {
			t.Errorf("%s is in slot %d, the task in %d", key, keyspace.Slot(key), want)
		}
	}
	if keyspace.Slot(k.Documents("a")) == keyspace.Slot(k.Documents("b")) {
		t.Error("two namespaces share a slot: the tag is not the namespace")
	}
}

// Every key starts with the prefix; the zero Keys uses the default.
func TestKeysUnderThePrefix(t *testing.T) {
	var zero keyspace.Keys
	if zero.Prefix() != "ragd" || keyspace.New("").Documents("a") != "ragd:{a}:docs" {
		t.Fatalf("default prefix: %q, %q", zero.Prefix(), keyspace.New("").Documents("a"))
	}
	k := keyspace.New("team:x")
	for _, key := range []string{k.Documents("a"), k.Namespaces(), k.WatchLease("a", "/srv/{b}"), k.Session("d"),
		k.Layout(), k.Jobs("q").Control("1"), k.CachedResult([]string{"a", "b"}, "1+2", "t", "d")} {
		if len(key) < len("team:x:") || key[:len("team:x:")] != "team:x:" {
			t.Errorf("%s is not under the prefix", key)
		}
	}
	// A brace in a watched path must not become the lease key's tag.
	if l := k.WatchLease("a", "/srv/{b}"); keyspace.Slot(l) == keyspace.Slot("b") {
		t.Errorf("the watched path's braces tag its lease key: %s", l)
	}
}
