package search_test

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/redis/go-redis/v9"

	"ragd"
	"ragd/internal/app"
	"ragd/internal/testkit/stack"
)

// noteFixture is a stack whose ingest root holds one file, note.md, indexed
// into namespace kb.
type noteFixture struct {
	s        *stack.Stack
	path, kb string
}

func newNoteFixture(t *testing.T, kb string, cache bool) *noteFixture {
	root := t.TempDir()
	cfg := stack.ServiceConfig(t, root)
	cfg.Cache.Enabled = cache
	return &noteFixture{s: stack.StartService(t, cfg, true), path: filepath.Join(root, "note.md"), kb: kb}
}

// index writes text to note.md, indexes it and returns its document id.
func (f *noteFixture) index(t *testing.T, text string) string {
	t.Helper()
	if err := os.WriteFile(f.path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	r := f.s.Do(t, http.MethodPost, "/tools/rag_index", map[string]any{"file_path": f.path, "kb_name": f.kb, "wait": true})
	if r.Status != http.StatusOK {
		t.Fatalf("index: %d %s", r.Status, r.Body)
	}
	return r.JSON["document_id"].(string)
}

// writeVersion stores text as the one chunk of a new version of document
// id, as a worker does before its registry commit, and returns its hash.
func (f *noteFixture) writeVersion(t *testing.T, id, text string) string {
	t.Helper()
	hash := ragd.ContentHash([]byte(text))
	chunk := ragd.Chunk{ID: ragd.ChunkID(id, hash, 0), DocumentID: id, Namespace: f.kb, Source: f.path,
		SourceType: ragd.SourceMarkdown, ContentHash: hash, Text: text}
	if err := f.s.Chunks.Upsert(t.Context(), f.kb, []ragd.Chunk{chunk}); err != nil {
		t.Fatal(err)
	}
	return hash
}

// only checks that a keyword search finds want alone ("": nothing), twice:
// the second search answers from what the first remembered.
func (f *noteFixture) only(t *testing.T, query, want string) {
	t.Helper()
	for range 2 {
		got := find(t, f.s, f.kb, query, "keyword")
		if want == "" && len(got) == 0 {
			continue
		}
		if len(got) != 1 || got[0].Text != want {
			t.Fatalf("search %q = %+v, want only %q", query, got, want)
		}
	}
}

// Searches remember which version of a document is current for as long as
// the namespace's registry epoch stands. Every new version and every delete
// must still show at once, and a version being written must stay hidden
// however warm that memory is.
func TestSearchFollowsEveryVersion(t *testing.T) {
	f := newNoteFixture(t, "v", false)
	v1 := "Lighthouse keepers trimmed the wicks every evening."
	id := f.index(t, v1)
	f.only(t, "lighthouse wicks", v1)

	v2 := "Lighthouse lamps now run on electricity and need no wicks."
	if f.index(t, v2) != id {
		t.Fatal("a changed file became another document")
	}
	f.only(t, "lighthouse wicks", v2)

	// Chunks of a version not yet recorded as current never show.
	f.writeVersion(t, id, "Lighthouse wicks of a draft nobody committed.")
	f.only(t, "lighthouse wicks", v2)

	if r := f.s.Do(t, http.MethodDelete, "/documents/"+id+"?kb_name=v", nil); r.Status != http.StatusOK {
		t.Fatalf("delete: %d %s", r.Status, r.Body)
	}
	f.only(t, "lighthouse wicks", "")
}

// A worker that dies after making a new version current but before it bumps
// the namespace's generation must not leave searches answered from the
// cache with the old version: the registry's epoch, which moved with the
// version, is part of the generation.
func TestCachedSearchFollowsVersionCommittedWithoutBump(t *testing.T) {
	f := newNoteFixture(t, "c", true)
	v1 := "Lighthouse keepers trimmed the wicks every evening."
	id := f.index(t, v1)
	f.only(t, "lighthouse wicks", v1) // the second answer comes from the cache

	// What IndexDocument does up to the registry commit, then nothing more.
	v2 := "Lighthouse lamps now run on electricity and need no wicks."
	hash := f.writeVersion(t, id, v2)
	if err := f.s.Library.Registry.Put(t.Context(), ragd.Document{ID: id, Namespace: f.kb, Source: f.path,
		SourceType: ragd.SourceMarkdown, ContentHash: hash, Chunks: 1}); err != nil {
		t.Fatal(err)
	}
	f.only(t, "lighthouse wicks", v2)
}

// A server holds its namespaces' epochs in memory (registry.KnownEpoch);
// versions another process writes must still show at once in a search
// sent after the job was seen completed: here every document is indexed
// by the worker of a second app on the same Redis and Weaviate, as a
// separate `ragd worker` process would, with a registry of its own.
func TestSearchFollowsVersionsOfAnotherProcess(t *testing.T) {
	root := t.TempDir()
	cfg := stack.Config(t, root)
	cfg.Cache.Enabled = false
	f := &noteFixture{s: stack.Start(t, cfg, false), path: filepath.Join(root, "note.md"), kb: "p"}
	other, err := app.New(context.Background(), cfg, stack.Logger(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(other.Close)
	w := other.NewWorker()
	if err := w.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.Shutdown)

	v1 := "Lighthouse keepers trimmed the wicks every evening."
	id := f.index(t, v1)
	f.only(t, "lighthouse wicks", v1) // the epoch is now held
	for _, text := range []string{
		"Lighthouse lamps now run on electricity and need no wicks.",
		"Lighthouse wicks went to a museum in the harbour town.",
	} {
		if f.index(t, text) != id {
			t.Fatal("a changed file became another document")
		}
		f.only(t, "lighthouse wicks", text)
	}
}

// epochReads counts the GETs of namespace epoch keys, alone or in a
// pipeline.
type epochReads struct{ n atomic.Int32 }

func (e *epochReads) count(cmds ...redis.Cmder) {
	for _, c := range cmds {
		if args := c.Args(); c.Name() == "get" && len(args) == 2 && strings.HasSuffix(fmt.Sprint(args[1]), ":epoch") {
			e.n.Add(1)
		}
	}
}

func (e *epochReads) DialHook(next redis.DialHook) redis.DialHook { return next }
func (e *epochReads) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error { e.count(cmd); return next(ctx, cmd) }
}
func (e *epochReads) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error { e.count(cmds...); return next(ctx, cmds) }
}

// A search reads its namespace's epoch once, with the versions it checks
// its hits against, when this process does not hold it (here, the first
// search after an index moved it); it read it twice before, once beside
// the search and again with the versions.
func TestSearchReadsTheEpochOnce(t *testing.T) {
	f := newNoteFixture(t, "once", false)
	text := "Tide tables are printed for the harbour every week."
	f.index(t, text)
	reads := &epochReads{}
	f.s.Redis.AddHook(reads)
	f.s.Search.Registry.ForgetEpoch(f.kb)
	if got := find(t, f.s, f.kb, "tide tables harbour", "keyword"); len(got) != 1 {
		t.Fatalf("search found %d hits, want 1", len(got))
	}
	if n := reads.n.Load(); n != 1 {
		t.Fatalf("one search read the epoch %d times, want once", n)
	}
}
