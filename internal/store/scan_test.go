package store

import (
	"context"
	"fmt"
	"reflect"
	"sort"
	"testing"
	"time"

	"ragd"
)

// The cursor pages through every chunk of a namespace exactly once, with
// the vectors, related words and tags written, and nothing of another
// namespace; a namespace that was never written has none.
func TestScanChunksPagesEverything(t *testing.T) {
	ctx := context.Background()
	s, _ := openTestStore(t, "m", 8)
	texts := make([]string, 23)
	for i := range texts {
		texts[i] = fmt.Sprintf("chunk number %d", i)
	}
	written := chunks("doc1", "h1", texts...)
	ts := time.Date(2026, 3, 4, 5, 6, 7, 891000000, time.UTC)
	for i := range written {
		written[i].Related = fmt.Sprintf("kin%d", i)
		written[i].Timestamp = ts
		written[i].Page = i % 3
	}
	if err := s.Upsert(ctx, "ns-a", written); err != nil {
		t.Fatal(err)
	}
	if err := s.Upsert(ctx, "ns-b", chunks("doc2", "h2", "elsewhere")); err != nil {
		t.Fatal(err)
	}
	var got []ragd.Chunk
	after, pages := "", 0
	for {
		page, err := s.ScanChunks(ctx, "ns-a", after, 5)
		if err != nil {
			t.Fatal(err)
		}
		if len(page) == 0 {
			break
		}
		pages++
		got = append(got, page...)
		after = page[len(page)-1].ID
	}
	if len(got) != len(written) || pages != 5 {
		t.Fatalf("scanned %d chunks in %d pages, want %d in 5", len(got), pages, len(written))
	}
	sort.Slice(got, func(i, j int) bool { return got[i].Index < got[j].Index })
	for i, c := range got {
		w := written[i]
		w.Namespace = "ns-a"
		c.Timestamp, w.Timestamp = c.Timestamp.UTC(), w.Timestamp.UTC()
		if !reflect.DeepEqual(c, w) {
			t.Fatalf("chunk %d read back as\n%+v\nwant\n%+v", i, c, w)
		}
	}
	if none, err := s.ScanChunks(ctx, "never-written", "", 5); err != nil || len(none) != 0 {
		t.Fatalf("unwritten namespace: %v, %v", none, err)
	}
}

func TestScanImagesAndCountVersion(t *testing.T) {
	ctx := context.Background()
	s, _ := openTestStore(t, "m", 8)
	im := ragd.Image{ID: ragd.ChunkID("doc1", "h1/image", 0), DocumentID: "doc1", ContentHash: "h1", Source: "file:///doc1",
		Index: 0, Page: 2, Position: 1, Caption: "Figure 1", Nearby: "a chart", Format: "png", Width: 10, Height: 20, Vector: vec(8, 3)}
	if err := s.UpsertImages(ctx, "ns", []ragd.Image{im}); err != nil {
		t.Fatal(err)
	}
	got, err := s.ScanImages(ctx, "ns", "", 10)
	im.Namespace = "ns"
	if err != nil || len(got) != 1 || !reflect.DeepEqual(got[0], im) {
		t.Fatalf("images: %+v, %v", got, err)
	}
	if err := s.Upsert(ctx, "ns", append(chunks("doc1", "h1", "a", "b"), chunks("doc1", "h2", "c")...)); err != nil {
		t.Fatal(err)
	}
	for hash, want := range map[string]int{"h1": 2, "h2": 1, "h3": 0} {
		if n, err := s.CountVersion(ctx, "ns", "doc1", hash); err != nil || n != want {
			t.Errorf("version %s: %d chunks, %v; want %d", hash, n, err, want)
		}
	}
}
