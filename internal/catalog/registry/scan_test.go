package registry_test

import (
	"context"
	"fmt"
	"testing"

	"ragd"
)

// Scan yields every document of the namespace, and only its, however
// small the batches.
func TestScanYieldsEveryDocument(t *testing.T) {
	ctx := context.Background()
	r := newRegistry(t)
	for i := range 300 {
		d := ragd.Document{ID: fmt.Sprintf("d%03d", i), Namespace: "ns", Source: fmt.Sprintf("file:///%d", i), ContentHash: fmt.Sprint("h", i), Chunks: i}
		if err := r.Put(ctx, d); err != nil {
			t.Fatal(err)
		}
	}
	if err := r.Put(ctx, ragd.Document{ID: "other", Namespace: "ns2", Source: "file:///o", ContentHash: "ho"}); err != nil {
		t.Fatal(err)
	}
	seen := map[string]int{}
	var cursor uint64
	for calls := 0; ; calls++ {
		docs, next, err := r.Scan(ctx, "ns", cursor, 20)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range docs {
			if d.Namespace != "ns" || d.ContentHash != fmt.Sprint("h", d.Chunks) {
				t.Fatalf("scanned %+v", d)
			}
			seen[d.ID]++
		}
		if cursor = next; cursor == 0 {
			break
		}
		if calls > 1000 {
			t.Fatal("scan does not end")
		}
	}
	if len(seen) != 300 {
		t.Fatalf("scanned %d documents, want 300", len(seen))
	}
	if docs, next, err := r.Scan(ctx, "empty", 0, 20); err != nil || len(docs) != 0 || next != 0 {
		t.Fatalf("empty namespace: %v %d %v", docs, next, err)
	}
}
