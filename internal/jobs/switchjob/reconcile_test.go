package switchjob

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"

	"ragd"
	"ragd/internal/catalog/registry"
	"ragd/internal/catalog/versions"
	"ragd/internal/platform/keyspace"
	"ragd/internal/store/live"
	"ragd/internal/testkit/memstore"
	"ragd/internal/testkit/testenv"
	"ragd/internal/testkit/wordvec"
)

// Reconciling a namespace makes the new collection hold each document's
// current version whole — chunks and pictures — and nothing of a stale
// one, whatever the copy and the failed dual writes left there.
func TestReconcileCopiesMissingChunksAndPictures(t *testing.T) {
	rdb := testenv.RedisClient(t, testenv.RedisOrMemory(t))
	reg := registry.New(rdb, keyspace.New("test:"+testenv.Unique(t, "R")))
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	e := &Runner{Registry: reg, Versions: &versions.Keeper{Registry: reg, Log: log}, Log: log}
	old, vec := wordvec.New(8), wordvec.New(12)
	from := &live.Side{Store: memstore.New(), Embedder: old, Bulk: old, BatchSize: 2}
	to := &live.Side{Store: memstore.New(), Embedder: vec, Bulk: vec, BatchSize: 2}
	ctx := context.Background()
	const ns, id = "docs", "d1"
	chunk := func(hash string, i int) ragd.Chunk {
		return ragd.Chunk{ID: ragd.ChunkID(id, hash, i), DocumentID: id, Namespace: ns, ContentHash: hash, Index: i,
			Text: "basalt columns " + hash, Source: "text://d1", SourceType: ragd.SourceText, Timestamp: time.Now().UTC(), Vector: make([]float32, 8)}
	}
	image := func(hash string) ragd.Image {
		return ragd.Image{ID: ragd.ImageID(id, hash, 0), DocumentID: id, Namespace: ns, ContentHash: hash,
			Caption: "a cliff of basalt " + hash, Source: "text://d1", Vector: make([]float32, 8)}
	}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	// The old collection: the current version h1 (two chunks, a picture)
	// and a stale h0. The new one: one chunk of h1, and h0's chunk and
	// picture the copy wrote back after their delete.
	must(from.Store.Upsert(ctx, ns, []ragd.Chunk{chunk("h1", 0), chunk("h1", 1), chunk("h0", 0)}))
	must(from.Store.UpsertImages(ctx, ns, []ragd.Image{image("h1"), image("h0")}))
	must(live.UpsertChunks(ctx, to, vec, ns, []ragd.Chunk{chunk("h1", 0), chunk("h0", 0)}))
	must(live.UpsertImages(ctx, to, vec, ns, []ragd.Image{image("h0")}))
	now := time.Now().UTC()
	must(reg.Put(ctx, ragd.Document{ID: id, Namespace: ns, Source: "text://d1", SourceType: ragd.SourceText, ContentHash: "h1",
		Chunks: 2, CreatedAt: now, UpdatedAt: now}))

	must(e.reconcile(ctx, ns, from, to))
	if n, _ := to.Store.CountVersion(ctx, ns, id, "h1"); n != 2 {
		t.Errorf("current version in the new collection: %d chunks, want 2", n)
	}
	if n, _ := to.Store.CountVersion(ctx, ns, id, "h0"); n != 0 {
		t.Errorf("stale version in the new collection: %d chunks, want 0", n)
	}
	images, err := to.Store.ScanImages(ctx, ns, "", 10)
	must(err)
	if len(images) != 1 || images[0].ContentHash != "h1" || len(images[0].Vector) != 0 && len(images[0].Vector) != 12 {
		t.Fatalf("pictures in the new collection: %+v, want h1's alone", images)
	}
}
