package registry_test

import (
	"context"
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"ragd"
)

// A document reads back exactly as it was put, from an entry about two
// thirds the size of its JSON; a document an earlier ragd wrote (its JSON) reads
// the same through every reader, and Put rewrites it in the short form.
func TestEntriesRoundTripAndOlderDocumentsRead(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	created := time.Date(2026, 11, 3, 9, 30, 0, 123456789, time.UTC)
	mtime := created.Add(-time.Hour)
	doc := ragd.Document{ID: "d1", Namespace: "ns", Source: "file:///srv/docs/handbook/intro.md", SourceType: ragd.SourceMarkdown,
		ContentHash: "0512888b90a0d469e7eac06100eaa9759c6f578ff3ca3baadd837333a29c08cd",
		RawHash:     "c780785360fbef609dc4e83091d28b728c2fd871a8a0207b458135643f60ef9f", Title: "Intro",
		Tags: []string{"guide"}, Access: []string{"eng"}, Chunks: 7, CreatedAt: created, UpdatedAt: created.Add(time.Minute),
		FileSize: 2366, FileModTime: &mtime}
	if err := f.Put(ctx, doc); err != nil {
		t.Fatal(err)
	}
	got, err := f.Get(ctx, "ns", "d1")
	if err != nil || !reflect.DeepEqual(*got, doc) {
		t.Fatalf("read back %+v, %v\nput %+v", got, err, doc)
	}
	kept, _ := f.rdb.HStrLen(ctx, f.keys.Documents("ns"), "d1").Result()
	full, _ := json.Marshal(doc)
	if kept*10 > int64(len(full))*7 {
		t.Errorf("the registry keeps %d bytes of a document whose JSON is %d", kept, len(full))
	}

	older := doc
	older.ID, older.Source, older.UpdatedAt, older.FileModTime = "d2", "file:///srv/docs/older.md", created, nil
	body, _ := json.Marshal(older)
	f.rdb.HSet(ctx, f.keys.Documents("ns"), "d2", body)
	if got, err := f.Get(ctx, "ns", "d2"); err != nil || !reflect.DeepEqual(*got, older) {
		t.Fatalf("older document read as %+v, %v", got, err)
	}
	many, err := f.GetMany(ctx, "ns", []string{"d1", "d2"})
	if err != nil || !reflect.DeepEqual(many["d2"], older) || !reflect.DeepEqual(many["d1"], doc) {
		t.Fatalf("GetMany: %+v, %v", many, err)
	}
	page, total, err := f.Page(ctx, "ns", 0, 10)
	if err != nil || total != 2 || len(page) != 2 || !reflect.DeepEqual(page[0], doc) || !reflect.DeepEqual(page[1], older) {
		t.Fatalf("Page: %d %+v, %v", total, page, err)
	}
	scanned, _, err := f.Scan(ctx, "ns", 0, 100)
	if err != nil || len(scanned) != 2 {
		t.Fatalf("Scan: %+v, %v", scanned, err)
	}
	older.Chunks = 8
	if err := f.Put(ctx, older); err != nil {
		t.Fatal(err)
	}
	if raw, _ := f.rdb.HGet(ctx, f.keys.Documents("ns"), "d2").Result(); raw[0:5] != `{"s":` {
		t.Errorf("rewritten older document: %s", raw)
	}
}
