package api_test

import (
	"context"
	"net/http"
	"reflect"
	"testing"
	"time"

	"ragd"
	"ragd/internal/testkit/stack"
)

// Every field of a chunk, a picture and a document survives an export and
// an import into another namespace, as the store and the registry give it
// back; the import changes only what names the namespace (kb_name, and the
// ids derived from it). The fields are set by name and checked non-zero by
// reflection, so a field added to one of the types fails here until it
// travels (the OCR flag of scanned pages once did not).
func TestArchiveKeepsEveryField(t *testing.T) {
	t.Parallel()
	s := stack.Start(t, stack.Config(t), true)
	ctx := context.Background()
	st := s.Do(t, http.MethodGet, "/tools/rag_stats", nil)
	dim := int(num(st.JSON["statistics"].(map[string]any), "dimension"))
	vector := func(seed float32) []float32 {
		v := make([]float32, dim)
		for i := range v {
			v[i] = seed + float32(i)/float32(dim)
		}
		return v
	}
	at := func(day int) time.Time { return time.Date(2026, 3, day, 4, 5, 6, 0, time.UTC) }
	const source, hash = "file:///scans/ledger.pdf", "9c3f2b1e0d4a5968778695a4b3c2d1e0f9e8d7c6b5a4938271605f4e3d2c1b0a"
	mtime := at(1)
	doc := ragd.Document{ID: ragd.DocumentID("src", source), Namespace: "src", Source: source, SourceType: ragd.SourcePDF,
		ContentHash: hash, RawHash: "0a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f9", Title: "Ledger of 1887",
		Tags: []string{"scan", "ledger"}, Access: []string{"audit", "finance"}, Chunks: 2, CreatedAt: at(2), UpdatedAt: at(3), FileSize: 48213, FileModTime: &mtime,
		WebURL: "https://git.example.org/harbour/ledgers/blob/3f2b1e0d4a5968778695a4b3c2d1e0f9e8d7c6b5/ledger.pdf", Commit: "3f2b1e0d4a5968778695a4b3c2d1e0f9e8d7c6b5"}
	chunks := make([]ragd.Chunk, 2)
	for i := range chunks {
		chunks[i] = ragd.Chunk{ID: ragd.ChunkID(doc.ID, hash, i), DocumentID: doc.ID, Namespace: "src", Source: source,
			SourceType: ragd.SourcePDF, ContentHash: hash, Index: i, Text: "Received of the harbour master forty shillings.",
			Path: "Ledger > March", Level: 2, Summary: "a payment", Page: 7 + i, OCR: true, Tags: []string{"scan"},
			Access: []string{"audit", "finance"}, Timestamp: at(4), Vector: vector(float32(i + 1)), Related: "receive harbor master shilling"}
	}
	image := ragd.Image{ID: ragd.ImageID(doc.ID, hash, 1), Namespace: "src", DocumentID: doc.ID, ContentHash: hash,
		Source: source, Index: 1, Page: 8, Position: 2, Caption: "Figure 2: the harbour", Nearby: "the master's seal",
		Format: "png", Width: 640, Height: 480, Access: []string{"audit", "finance"}, Vector: vector(3)}
	requireEveryField(t, chunks[1], image, doc)

	if err := s.Chunks.Upsert(ctx, "src", chunks); err != nil {
		t.Fatal(err)
	}
	if err := s.Chunks.UpsertImages(ctx, "src", []ragd.Image{image}); err != nil {
		t.Fatal(err)
	}
	if err := s.Library.Registry.Put(ctx, doc); err != nil {
		t.Fatal(err)
	}
	if _, job := importKB(t, s, "dst", exportKB(t, s, "src")); job.Status != ragd.JobCompleted {
		t.Fatalf("import: %s %s", job.Status, job.Error)
	}

	// What the import may change: the namespace and the ids it derives.
	docID := ragd.DocumentID("dst", source)
	wantDoc := doc
	wantDoc.Namespace, wantDoc.ID = "dst", docID
	for i := range chunks {
		chunks[i].Namespace, chunks[i].DocumentID, chunks[i].ID = "dst", docID, ragd.ChunkID(docID, hash, i)
	}
	image.Namespace, image.DocumentID, image.ID = "dst", docID, ragd.ImageID(docID, hash, 1)

	gotChunks, err := s.Chunks.ScanChunks(ctx, "dst", "", 10)
	if err != nil {
		t.Fatal(err)
	}
	byID := map[string]ragd.Chunk{}
	for _, c := range gotChunks {
		byID[c.ID] = c
	}
	for _, want := range chunks {
		got, ok := byID[want.ID]
		if !ok {
			t.Fatalf("chunk %d not imported (%d chunks in dst)", want.Index, len(gotChunks))
		}
		same(t, "chunk", got, want)
	}
	gotImages, err := s.Chunks.ScanImages(ctx, "dst", "", 10)
	if err != nil || len(gotImages) != 1 {
		t.Fatalf("images of dst: %v %v", gotImages, err)
	}
	same(t, "image", gotImages[0], image)
	gotDoc, err := s.Library.Registry.Get(ctx, "dst", docID)
	if err != nil {
		t.Fatal(err)
	}
	same(t, "document", *gotDoc, wantDoc)
}

// requireEveryField fails t for a field of any of vs left at its zero
// value.
func requireEveryField(t *testing.T, vs ...any) {
	t.Helper()
	for _, v := range vs {
		rv := reflect.ValueOf(v)
		for i := range rv.NumField() {
			if rv.Field(i).IsZero() {
				t.Fatalf("%s.%s is not set: set every field, so that the round trip checks it", rv.Type(), rv.Type().Field(i).Name)
			}
		}
	}
}

// same compares got with want field by field, times as instants.
func same[T any](t *testing.T, what string, got, want T) {
	t.Helper()
	g, w := reflect.ValueOf(got), reflect.ValueOf(want)
	for i := range g.NumField() {
		gf, wf := g.Field(i).Interface(), w.Field(i).Interface()
		switch wt := wf.(type) {
		case time.Time:
			if !gf.(time.Time).Equal(wt) {
				t.Errorf("%s.%s: %v, want %v", what, g.Type().Field(i).Name, gf, wf)
			}
		case *time.Time:
			if gt := gf.(*time.Time); gt == nil || !gt.Equal(*wt) {
				t.Errorf("%s.%s: %v, want %v", what, g.Type().Field(i).Name, gt, *wt)
			}
		default:
			if !reflect.DeepEqual(gf, wf) {
				t.Errorf("%s.%s: %v, want %v", what, g.Type().Field(i).Name, gf, wf)
			}
		}
	}
}
