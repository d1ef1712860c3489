package registry_test

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"ragd"
)

// IDsWithPrefix finds the namespace's ids that start with the prefix, and
// only its, sorted and bounded, saying when more match; a prefix that is
// not hex (a glob, say) matches nothing.
func TestIDsWithPrefix(t *testing.T) {
	ctx := context.Background()
	r := newRegistry(t)
	for i := range 40 {
		id := fmt.Sprintf("%02x%s", i, "00ff")
		if err := r.Put(ctx, ragd.Document{ID: id, Namespace: "ns", Source: "file:///" + id, ContentHash: "h" + id}); err != nil {
			t.Fatal(err)
		}
	}
	if err := r.Put(ctx, ragd.Document{ID: "1a99", Namespace: "ns2", Source: "file:///o", ContentHash: "ho"}); err != nil {
		t.Fatal(err)
	}
	ids, more, err := r.IDsWithPrefix(ctx, "ns", "1", 100)
	want := []string{"1000ff", "1100ff", "1200ff", "1300ff", "1400ff", "1500ff", "1600ff", "1700ff", "1800ff", "1900ff",
		"1a00ff", "1b00ff", "1c00ff", "1d00ff", "1e00ff", "1f00ff"}
	if err != nil || more || !slices.Equal(ids, want) {
		t.Fatalf("prefix 1: %v more=%v %v", ids, more, err)
	}
	if ids, more, err = r.IDsWithPrefix(ctx, "ns", "", 10); err != nil || !more || len(ids) != 10 || !slices.IsSorted(ids) {
		t.Fatalf("empty prefix, limit 10: %v more=%v %v", ids, more, err)
	}
	for _, p := range []string{"*", "1?", "[1]", "G", "zz"} {
		if ids, more, err := r.IDsWithPrefix(ctx, "ns", p, 10); err != nil || more || len(ids) != 0 {
			t.Errorf("prefix %q: %v more=%v %v", p, ids, more, err)
		}
	}
}
