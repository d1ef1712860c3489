package archivesvc_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"runtime/metrics"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hibiken/asynq"

	"ragd"
	"ragd/internal/catalog/vocab"
	"ragd/internal/jobs"
	"ragd/internal/library/archivesvc"
	"ragd/internal/testkit/stack"
	"ragd/wire"
)

// specTemplate is the Go specification's chunks, one document's worth.
func specTemplate(b *testing.B, s *stack.Stack) []ragd.Chunk {
	chunks := s.SpecChunks(b)
	for i := range chunks {
		chunks[i].Tags = []string{"spec"}
	}
	return chunks
}

// fill writes docs copies of the template into the namespace as documents
// of their own (chunks, registry, vocabulary), as ingest leaves them, and
// returns the chunks written when keep is set.
func fill(b *testing.B, s *stack.Stack, ns string, template []ragd.Chunk, docs int, keep bool) []ragd.Chunk {
	b.Helper()
	ctx := context.Background()
	var kept []ragd.Chunk
	for d := range docs {
		source := fmt.Sprintf("file:///spec/%04d.html", d)
		id, hash := ragd.DocumentID(ns, source), ragd.ContentHash([]byte(source))
		chunks := make([]ragd.Chunk, len(template))
		texts := make([]string, len(template))
		for i, c := range template {
			c.ID, c.DocumentID, c.ContentHash, c.Source, c.Namespace = ragd.ChunkID(id, hash, i), id, hash, source, ns
			chunks[i], texts[i] = c, c.Path+"\n"+c.Text
		}
		if err := s.Chunks.Upsert(ctx, ns, chunks); err != nil {
			b.Fatal(err)
		}
		now := time.Now().UTC()
		doc := ragd.Document{ID: id, Namespace: ns, Source: source, SourceType: ragd.SourceHTML, ContentHash: hash,
			Title: "spec " + strconv.Itoa(d), Chunks: len(chunks), CreatedAt: now, UpdatedAt: now}
		if err := s.Library.Registry.Put(ctx, doc); err != nil {
			b.Fatal(err)
		}
		if err := s.Library.Versions.Vocab.Learn(ctx, ns, id, hash, vocab.CountTexts(texts), nil); err != nil {
			b.Fatal(err)
		}
		if keep {
			kept = append(kept, chunks...)
		}
	}
	return kept
}

// export writes the namespace's archive to w.
func export(b *testing.B, s *stack.Stack, ns string, w io.Writer) archivesvc.ExportStats {
	b.Helper()
	exp, err := s.Archiver.Export(context.Background(), ns)
	if err != nil {
		b.Fatal(err)
	}
	st, err := exp.WriteTo(context.Background(), w)
	if err != nil {
		b.Fatal(err)
	}
	return st
}

// importArchive uploads an archive and runs its job here (the stack has no
// worker), as the worker would.
func importArchive(b *testing.B, s *stack.Stack, ns string, data []byte) wire.ImportResult {
	b.Helper()
	ctx := context.Background()
	enq, err := s.Archiver.Import(ctx, ns, bytes.NewReader(data), int64(len(data)))
	if err != nil {
		b.Fatal(err)
	}
	pl := jobs.ImportPayload{Namespace: ns, FromKBName: enq.FromKBName,
		ArchivePath: filepath.Join(s.Archiver.Dir, enq.JobID+".ragd.jsonl.gz")}
	res, err := s.Imports.RunImport(ctx, pl, jobs.NewReporter(asynq.NewTask(jobs.TypeImport, nil)))
	if err != nil {
		b.Fatal(err)
	}
	return res
}

// BenchmarkExportImport measures export and import throughput in chunks/s
// against the ingest write path (store.Upsert of the same chunks with
// their vectors into a fresh namespace), interleaved in alternating order.
// The export reads a namespace of three copies of the Go specification;
// the import writes that archive into a fresh namespace (upload with its
// whole-archive check, the job's second check, writes and per-document
// commits).
func BenchmarkExportImport(b *testing.B) {
	cfg := stack.Config(b)
	cfg.Data.Dir = b.TempDir()
	s := stack.Start(b, cfg, false)
	ctx := context.Background()
	chunks := fill(b, s, "src", specTemplate(b, s), 3, true)
	var archive bytes.Buffer
	export(b, s, "src", &archive) // warm
	data := archive.Bytes()
	importArchive(b, s, "warm-import", data)
	if err := s.Chunks.Upsert(ctx, "warm-upsert", chunks); err != nil {
		b.Fatal(err)
	}

	steps := []func(i int) time.Duration{
		func(int) time.Duration { return timed(func() { export(b, s, "src", io.Discard) }) },
		func(i int) time.Duration {
			return timed(func() { importArchive(b, s, fmt.Sprintf("import-%d", i), data) })
		},
		func(i int) time.Duration {
			return timed(func() {
				if err := s.Chunks.Upsert(ctx, fmt.Sprintf("upsert-%d", i), chunks); err != nil {
					b.Fatal(err)
				}
			})
		},
	}
	var took [3]time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for k := range steps { // rotate the order every round
			j := (k + i) % len(steps)
			took[j] += steps[j](i)
		}
	}
	b.StopTimer()
	n := float64(len(chunks) * b.N)
	exportRate, importRate, upsertRate := n/took[0].Seconds(), n/took[1].Seconds(), n/took[2].Seconds()
	b.ReportMetric(exportRate, "export_chunks/s")
	b.ReportMetric(importRate, "import_chunks/s")
	b.ReportMetric(upsertRate, "upsert_chunks/s")
	b.ReportMetric(exportRate/upsertRate, "export/upsert")
	b.ReportMetric(importRate/upsertRate, "import/upsert")
	fmt.Printf("export/import: %d chunks (%d documents, archive %.1f MB) × %d rounds: export %.0f chunks/s, import %.0f chunks/s, "+
		"ingest write path (store.Upsert) %.0f chunks/s; export/upsert %.2f, import/upsert %.2f\n",
		len(chunks), 3, float64(len(data))/1e6, b.N, exportRate, importRate, upsertRate, exportRate/upsertRate, importRate/upsertRate)
}

// BenchmarkArchiveMemory exports namespaces of about 5,000 and 20,000
// chunks and imports the larger archive, sampling the Go heap and the
// process's RSS meanwhile: what they hold stays about the same while the
// namespace and its archive grow fourfold. It reports numbers; nothing is
// timed.
func BenchmarkArchiveMemory(b *testing.B) {
	cfg := stack.Config(b)
	cfg.Data.Dir = b.TempDir()
	s := stack.Start(b, cfg, false)
	template := specTemplate(b, s)
	perDoc := len(template)
	small, large := 5000/perDoc+1, 20000/perDoc+1
	fill(b, s, "small", template, small, false)
	fill(b, s, "large", template, large, false)
	path := filepath.Join(b.TempDir(), "large.ragd.jsonl.gz")
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, c := range []struct {
			ns   string
			docs int
		}{{"small", small}, {"large", large}} {
			f, err := os.Create(path)
			if err != nil {
				b.Fatal(err)
			}
			var st archivesvc.ExportStats
			peak := sampled(func() { st = export(b, s, c.ns, f) })
			size, _ := f.Seek(0, io.SeekCurrent)
			_ = f.Close()
			fmt.Printf("export of %d chunks (%d documents, archive %.1f MB): %s\n", st.Chunks, st.Documents, float64(size)/1e6, peak)
			b.ReportMetric((peak.heap-peak.heapBefore)/1e6, c.ns+"_export_live_heap_growth_MB")
		}
		f, err := os.Open(path)
		if err != nil {
			b.Fatal(err)
		}
		var res wire.ImportResult
		peak := sampled(func() { res = importFile(b, s, fmt.Sprintf("imported-%d", i), f) })
		_ = f.Close()
		fmt.Printf("import of %d chunks (%d documents): %s\n", res.ChunksImported, res.DocumentsImported, peak)
		b.ReportMetric((peak.heap-peak.heapBefore)/1e6, "import_live_heap_growth_MB")
	}
}

// importFile is importArchive streaming the upload from a file.
func importFile(b *testing.B, s *stack.Stack, ns string, f *os.File) wire.ImportResult {
	b.Helper()
	ctx := context.Background()
	enq, err := s.Archiver.Import(ctx, ns, f, -1)
	if err != nil {
		b.Fatal(err)
	}
	pl := jobs.ImportPayload{Namespace: ns, FromKBName: enq.FromKBName,
		ArchivePath: filepath.Join(s.Archiver.Dir, enq.JobID+".ragd.jsonl.gz")}
	res, err := s.Imports.RunImport(ctx, pl, jobs.NewReporter(asynq.NewTask(jobs.TypeImport, nil)))
	if err != nil {
		b.Fatal(err)
	}
	return res
}

type peaks struct{ heap, heapBefore, rss, rssBefore float64 }

func (p peaks) String() string {
	return fmt.Sprintf("live heap %.1f MB before, at most %.1f MB during (+%.1f MB); RSS %.1f MB before, peak %.1f MB (+%.1f MB)",
		p.heapBefore/1e6, p.heap/1e6, (p.heap-p.heapBefore)/1e6, p.rssBefore/1e6, p.rss/1e6, (p.rss-p.rssBefore)/1e6)
}

// sampled runs f, sampling every 5 ms the live heap (what the latest
// collection found reachable: garbage not yet collected, which GOGC lets
// grow to the size of the live heap, is not what f holds) and the RSS,
// after a collection that returns freed memory to the OS; GOGC is 10
// meanwhile.
func sampled(f func()) peaks {
	// Collect often, so the samples see what f holds rather than when the
	// collector last ran, and garbage does not pass for RSS f needs.
	defer debug.SetGCPercent(debug.SetGCPercent(10))
	debug.FreeOSMemory()
	sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(sample)
	p := peaks{heapBefore: float64(sample[0].Value.Uint64()), rssBefore: rss()}
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(5 * time.Millisecond)
		defer t.Stop()
		for {
			metrics.Read(sample)
			p.heap = max(p.heap, float64(sample[0].Value.Uint64()))
			p.rss = max(p.rss, rss())
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	}()
	f()
	close(done)
	wg.Wait()
	return p
}

// rss is the process's resident set size (Linux), 0 elsewhere.
func rss() float64 {
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(status), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, _ := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 64)
			return kb * 1024
		}
	}
	return 0
}

func timed(f func()) time.Duration {
	start := time.Now()
	f()
	return time.Since(start)
}
