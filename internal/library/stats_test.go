package library_test

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"ragd"
	"ragd/internal/catalog/registry"
	"ragd/internal/library"
	"ragd/internal/platform/keyspace"
	"ragd/internal/testkit/stack"
)

// More namespaces than are counted at once each get their own counts, and
// a failure is the first failing namespace's, as when counted in turn.
func TestStatsCountsNamespacesConcurrently(t *testing.T) {
	t.Parallel()
	s := stack.StartService(t, stack.ServiceConfig(t), true)
	want := map[string]library.NamespaceStats{}
	total := 0
	var jobs []string
	for i := range 12 {
		ns := fmt.Sprintf("ns%02d", i)
		for j := range i%3 + 1 {
			text := fmt.Sprintf("Note %d of %s: the %d lighthouses of the northern coast.", j, ns, i*10+j)
			resp := s.Do(t, http.MethodPost, "/tools/rag_index", map[string]any{"text": text, "kb_name": ns})
			id, _ := resp.JSON["job_id"].(string)
			if resp.Status != http.StatusAccepted || id == "" {
				t.Fatalf("index: %d %s", resp.Status, resp.Body)
			}
			jobs = append(jobs, id)
		}
		want[ns] = library.NamespaceStats{Documents: i%3 + 1, Chunks: i%3 + 1}
		total += i%3 + 1
	}
	for _, id := range jobs {
		if job := s.WaitJob(t, id, time.Minute); job.Status != ragd.JobCompleted {
			t.Fatalf("job %+v", job)
		}
	}
	st, err := s.Library.Stats(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if !maps.Equal(st.Statistics.Namespaces, want) || st.Statistics.NumEntities != total {
		t.Fatalf("namespaces %v (%d chunks), want %v (%d)", st.Statistics.Namespaces, st.Statistics.NumEntities, want, total)
	}

	for _, failing := range [][]string{{"ns03", "ns09"}, {"ns09"}, {"ns11", "ns00"}} {
		svc := *s.Library
		svc.Registry = registry.New(failingCounts(t, s.Config.Redis.URL, failing...), keyspace.New(s.Config.Redis.KeyPrefix))
		first := slices.Min(failing)
		for range 10 { // the choice must not depend on which goroutine fails first
			_, err := svc.Stats(context.Background())
			if ragd.KindOf(err) != ragd.KindUnavailable || !strings.Contains(fmt.Sprint(errors.Unwrap(err)), first+" down") {
				t.Fatalf("%v failing: %v, want redis unavailable from %s", failing, err, first)
			}
		}
	}
}

// failingCounts returns a client of the Redis at url whose HLEN of the
// listed namespaces' documents fails.
func failingCounts(t *testing.T, url string, namespaces ...string) redis.UniversalClient {
	t.Helper()
	opts, err := redis.ParseURL(url)
	if err != nil {
		t.Fatal(err)
	}
	rdb := redis.NewClient(opts)
	t.Cleanup(func() { _ = rdb.Close() })
	rdb.AddHook(failHook(namespaces))
	return rdb
}

type failHook []string

func (h failHook) DialHook(next redis.DialHook) redis.DialHook { return next }

func (h failHook) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		if cmd.Name() == "hlen" {
			key := fmt.Sprint(cmd.Args()[1])
			for _, ns := range h {
				if strings.HasSuffix(key, "{"+ns+"}:docs") {
					err := errors.New(ns + " down")
					cmd.SetErr(err)
					return err
				}
			}
		}
		return next(ctx, cmd)
	}
}

func (h failHook) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return next
}

// A version being written (its chunks stored, not yet made current) is not
// counted: rag_stats counts the chunks of current versions alone.
func TestStatsLeavesOutVersionsBeingWritten(t *testing.T) {
	t.Parallel()
	s := stack.StartService(t, stack.ServiceConfig(t), true)
	ctx := context.Background()
	resp := s.Do(t, http.MethodPost, "/tools/rag_index", map[string]any{"text": "The lighthouse keeper's log, one entry.", "kb_name": "held"})
	id, _ := resp.JSON["job_id"].(string)
	if job := s.WaitJob(t, id, time.Minute); job.Status != ragd.JobCompleted {
		t.Fatalf("job %+v", job)
	}
	docs, _, err := s.Library.Registry.Page(ctx, "held", 0, 10)
	if err != nil || len(docs) != 1 {
		t.Fatalf("documents %v: %v", docs, err)
	}
	d := docs[0]
	chunks, err := s.Archiver.Store.DocumentChunks(ctx, "held", d.ID, d.ContentHash, 0, 10)
	if err != nil || len(chunks) != d.Chunks {
		t.Fatalf("chunks %d of %d: %v", len(chunks), d.Chunks, err)
	}
	// The next version, written as a worker writes it before its commit.
	next := strings.Repeat("b", len(d.ContentHash))
	for i := range chunks {
		chunks[i].ContentHash = next
		chunks[i].ID = ragd.ChunkID(d.ID, next, chunks[i].Index)
	}
	if err := s.Archiver.Store.Upsert(ctx, "held", chunks); err != nil {
		t.Fatal(err)
	}
	if n, err := s.Archiver.Store.Count(ctx, "held", ""); err != nil || n != 2*d.Chunks {
		t.Fatalf("store holds %d chunks, want %d: %v", n, 2*d.Chunks, err)
	}
	st, err := s.Library.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := library.NamespaceStats{Documents: 1, Chunks: d.Chunks}
	if got := st.Statistics.Namespaces["held"]; got != want || st.Statistics.NumEntities != d.Chunks {
		t.Fatalf("held: %+v (%d chunks in all), want %+v", got, st.Statistics.NumEntities, want)
	}
}
