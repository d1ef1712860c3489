package worker

import (
	"context"
	"sync"
	"time"

	"ragd"
	"ragd/internal/platform/telemetry"
)

// BatchWriter coalesces the chunk writes of a worker process's concurrent
// jobs into Weaviate batches of up to Size chunks. A directory of small
// files otherwise writes one batch of ~15 chunks per document, and
// Weaviate's cost per batch (its commit log, its per-shard work) makes
// that about half as fast as the same chunks sent 100 or more at a time.
//
// A write joins the namespace's open batch, which is sent when it holds
// Size chunks, when every job the process is running is waiting in it (no
// one else could join: Enter counts the jobs), or Wait after its first
// write, whichever comes first; each writer waits for its own chunks to
// be written. A batch that fails as a
// whole for any reason but an unavailable store is sent again writer by
// writer, so that a document the store refuses fails alone. Chunk ids are
// deterministic, so a chunk written twice is the same object. Every other
// call goes straight to the store.
type BatchWriter struct {
	ragd.ChunkWriter
	Size int
	Wait time.Duration
	// Target, when set, names where a write in a context goes
	// (live.Store.WriteTarget): only writes of one target share a batch,
	// which is written in its first writer's context.
	Target func(context.Context) any

	mu     sync.Mutex
	open   map[batchKey]*batch // the batches being filled
	active int                 // jobs running (Enter)
}

// Enter counts a job of the process as running until the returned func
// is called: a batch all running jobs wait in is sent at once.
func (w *BatchWriter) Enter() (leave func()) {
	w.mu.Lock()
	w.active++
	w.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			w.mu.Lock()
			w.active--
			w.mu.Unlock()
		})
	}
}

// batchKey is what writes sharing a batch have in common.
type batchKey struct {
	ns     string
	target any
}

// batch is one coalesced write: every writer's chunks and, once written,
// each writer's outcome.
type batch struct {
	key   batchKey
	ctx   context.Context // the first writer's, without its cancellation
	ns    string
	parts [][]ragd.Chunk
	n     int
	timer *time.Timer
	once  sync.Once
	done  chan struct{}
	errs  []error
}

// Upsert writes chunks within a shared batch and returns once they are
// written (or failed). Like the store's, it finishes a write even when ctx
// ends meanwhile, so that what a cancelled job wrote is in the store by
// the time its cleanup looks.
func (w *BatchWriter) Upsert(ctx context.Context, namespace string, chunks []ragd.Chunk) error {
	if len(chunks) == 0 {
		return nil
	}
	if w.Size <= 1 || w.Wait <= 0 || len(chunks) >= w.Size {
		return w.ChunkWriter.Upsert(context.WithoutCancel(ctx), namespace, chunks)
	}
	// A span per writer: its wait and the shared write, which runs (and is
	// traced) under the span of the batch's first writer.
	ctx, span := telemetry.Start(ctx, "ingest.batch")
	key := batchKey{ns: namespace}
	if w.Target != nil {
		key.target = w.Target(ctx)
	}
	w.mu.Lock()
	if w.open == nil {
		w.open = map[batchKey]*batch{}
	}
	b := w.open[key]
	if b == nil || b.n+len(chunks) > w.Size {
		if b != nil {
			delete(w.open, key)
			go w.send(b) // full enough: this write starts the next
		}
		b = &batch{key: key, ctx: context.WithoutCancel(ctx), ns: namespace, done: make(chan struct{})}
		w.open[key] = b
		b.timer = time.AfterFunc(w.Wait, func() { w.close(b) })
	}
	i := len(b.parts)
	b.parts = append(b.parts, chunks)
	b.n += len(chunks)
	full := b.n >= w.Size || w.active > 0 && len(b.parts) >= w.active
	if full {
		delete(w.open, key)
	}
	w.mu.Unlock()
	if full {
		w.send(b)
	}
	<-b.done
	if span.Recording() {
		span.Set(telemetry.Int(telemetry.KeyChunks, len(chunks)), telemetry.Int("ragd.batch.chunks", b.n),
			telemetry.Int("ragd.batch.jobs", len(b.parts)))
	}
	span.End(b.errs[i])
	return b.errs[i]
}

// close sends b when its wait is over, unless it was sent already.
func (w *BatchWriter) close(b *batch) {
	w.mu.Lock()
	if w.open[b.key] == b {
		delete(w.open, b.key)
	}
	w.mu.Unlock()
	w.send(b)
}

// send writes b once: as one batch, then, if that fails and the store is
// not unavailable, writer by writer.
func (w *BatchWriter) send(b *batch) {
	b.once.Do(func() {
		b.timer.Stop()
		ctx := b.ctx // the store's guard bounds each attempt
		b.errs = make([]error, len(b.parts))
		all := b.parts[0]
		if len(b.parts) > 1 {
			all = make([]ragd.Chunk, 0, b.n)
			for _, p := range b.parts {
				all = append(all, p...)
			}
		}
		err := w.ChunkWriter.Upsert(ctx, b.ns, all)
		switch {
		case err == nil:
		case len(b.parts) == 1 || ragd.KindOf(err) == ragd.KindUnavailable:
			for i := range b.errs {
				b.errs[i] = err
			}
		default:
			for i, p := range b.parts {
				b.errs[i] = w.ChunkWriter.Upsert(ctx, b.ns, p)
			}
		}
		close(b.done)
	})
}
