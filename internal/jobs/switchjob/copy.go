package switchjob

import (
	"context"
	"slices"
	"sync"

	"golang.org/x/sync/errgroup"

	"ragd"
	"ragd/internal/catalog/versions"
	"ragd/internal/jobs"
	"ragd/internal/store/live"
)

// copyAll re-embeds every namespace's chunks and pictures from the text
// the old collection holds into the new one, from the switch's checkpoint
// on. Each checkpoint is written once the batches before it are all in
// the new collection, so a run that dies resumes without a gap (batches
// after it are written again: ids are deterministic).
func (e *Runner) copyAll(ctx context.Context, sw *live.Switch, from, to *live.Side, rep *jobs.Reporter) error {
	namespaces, err := from.Store.Namespaces(ctx)
	if err != nil {
		return err
	}
	slices.Sort(namespaces)
	total := sw.Total
	if total == 0 {
		for _, ns := range namespaces {
			n, err := from.Store.Count(ctx, ns, "")
			if err != nil {
				return err
			}
			total += n
		}
	}
	c := &copier{e: e, id: sw.JobID, from: from, to: to, rep: rep, done: sw.Done, total: total, copied: slices.Clone(sw.Copied)}
	for _, ns := range namespaces {
		if slices.Contains(c.copied, ns) {
			continue
		}
		after, images := "", false
		if ns == sw.Namespace {
			after, images = sw.After, sw.Images
		}
		if err := c.namespace(ctx, ns, after, images); err != nil {
			return err
		}
	}
	return nil
}

// copier is one run's copy and its progress.
type copier struct {
	e        *Runner
	id       string
	from, to *live.Side
	rep      *jobs.Reporter
	done     int
	total    int
	copied   []string
}

func (c *copier) namespace(ctx context.Context, ns, after string, images bool) error {
	batch := max(c.to.BatchSize, 1)
	if !images {
		err := copyPages(ctx, c, ns, after, batch, pipeline[ragd.Chunk]{
			scan: func(after string) ([]ragd.Chunk, error) { return c.from.Store.ScanChunks(ctx, ns, after, batch) },
			idOf: func(ch ragd.Chunk) string { return ch.ID },
			embed: func(ctx context.Context, page []ragd.Chunk) ([]ragd.Chunk, error) {
				return live.EmbedChunks(ctx, c.to.Bulk, page)
			},
			store:      func(ctx context.Context, page []ragd.Chunk) error { return c.to.Store.Upsert(ctx, ns, page) },
			checkpoint: func(cursor string, n int) { c.done += n; c.checkpoint(ctx, ns, cursor, false) },
		})
		if err != nil {
			return err
		}
		after = ""
		c.checkpoint(ctx, ns, "", true)
	}
	err := copyPages(ctx, c, ns, after, batch, pipeline[ragd.Image]{
		scan: func(after string) ([]ragd.Image, error) { return c.from.Store.ScanImages(ctx, ns, after, batch) },
		idOf: func(im ragd.Image) string { return im.ID },
		embed: func(ctx context.Context, page []ragd.Image) ([]ragd.Image, error) {
			return live.EmbedImages(ctx, c.to.Bulk, page)
		},
		store:      func(ctx context.Context, page []ragd.Image) error { return c.to.Store.UpsertImages(ctx, ns, page) },
		checkpoint: func(cursor string, _ int) { c.checkpoint(ctx, ns, cursor, true) },
	})
	if err != nil {
		return err
	}
	c.copied = append(c.copied, ns)
	c.checkpoint(ctx, "", "", false)
	return nil
}

// checkpoint records where the copy stands and reports its progress.
func (c *copier) checkpoint(ctx context.Context, ns, after string, images bool) {
	c.rep.Progress(c.done, c.total, "chunks")
	err := c.e.Live.Records().Checkpoint(ctx, c.id, live.Progress{Done: c.done, Total: c.total, Copied: c.copied,
		Namespace: ns, After: after, Images: images})
	if err != nil {
		c.e.Log.WarnContext(ctx, "embedder switch checkpoint not recorded; a restart copies again from the one before", "job_id", c.id, "error", err)
	}
}

// pipeline is how copyPages reads, re-embeds and writes one kind of item.
type pipeline[T any] struct {
	// scan reads the page after cursor; a short page is the last.
	scan func(after string) ([]T, error)
	idOf func(T) string
	// embed returns the page with the new embedder's vectors, store
	// writes it to the new collection.
	embed func(context.Context, []T) ([]T, error)
	store func(context.Context, []T) error
	// checkpoint records that every item up to cursor is written, n more
	// since the last; only copyPages' own goroutine calls it.
	checkpoint func(cursor string, n int)
}

// page is one page on its way through the pipeline: its place in the
// scan and the cursor after it.
type page[T any] struct {
	seq    int
	items  []T
	cursor string
}

// copyPages copies one namespace's items from after on as a pipeline,
// so the embedder is kept busy while the pages around its batches are
// read and written: one reader scans up to Concurrency pages ahead,
// Concurrency batches are embedded at once, and up to Concurrency
// embedded pages are written at once. A page's checkpoint is recorded once
// it and every page before it are written (pages finish out of order); a
// run that dies resumes from the last, writing again the pages after it
// that had finished. A failure is retried where it happened: a write that
// fails does not embed its page again.
func copyPages[T any](ctx context.Context, c *copier, ns, after string, batch int, p pipeline[T]) error {
	k := max(c.e.Concurrency, 1)
	g, gctx := errgroup.WithContext(ctx)
	scanned := make(chan page[T], k)
	embedded := make(chan page[T], k)
	written := make(chan page[T], k)
	g.Go(func() error {
		defer close(scanned)
		cursor := after
		for seq := 0; ; seq++ {
			var items []T
			if err := c.e.retry(gctx, c.id, func() (err error) { items, err = p.scan(cursor); return err }); err != nil {
				return err
			}
			if len(items) > 0 {
				cursor = p.idOf(items[len(items)-1])
				select {
				case scanned <- page[T]{seq: seq, items: items, cursor: cursor}:
				case <-gctx.Done():
					return gctx.Err()
				}
			}
			if len(items) < batch {
				return nil
			}
		}
	})
	stage := func(in <-chan page[T], out chan<- page[T], step func(*page[T]) error) {
		var workers sync.WaitGroup
		for range k {
			workers.Add(1)
			g.Go(func() error {
				defer workers.Done()
				for pg := range in {
					if err := c.e.retry(gctx, c.id, func() error { return step(&pg) }); err != nil {
						return err
					}
					select {
					case out <- pg:
					case <-gctx.Done():
						return gctx.Err()
					}
				}
				return nil
			})
		}
		go func() { workers.Wait(); close(out) }()
	}
	stage(scanned, embedded, func(pg *page[T]) error {
		items, err := p.embed(gctx, pg.items)
		if err == nil {
			pg.items = items
		}
		return err
	})
	stage(embedded, written, func(pg *page[T]) error { return p.store(gctx, pg.items) })
	// Checkpoints, in scan order, as the pages before them are written.
	// A stage that fails stops the others; what was written before is
	// still recorded, then the failure returned.
	pending := map[int]page[T]{}
	next := 0
	for pg := range written {
		pending[pg.seq] = pg
		n, cursor := 0, ""
		for {
			done, ok := pending[next]
			if !ok {
				break
			}
			delete(pending, next)
			n, cursor = n+len(done.items), done.cursor
			next++
		}
		if n > 0 {
			p.checkpoint(cursor, n)
		}
	}
	return g.Wait()
}

// reconcileDirty checks the namespaces something was deleted from (or
// failed to reach the new collection) during the copy against the
// registry, until none is left: the copy may have read a version a delete
// then removed from both and written it back after.
func (e *Runner) reconcileDirty(ctx context.Context, from, to *live.Side) error {
	for {
		dirty, err := e.Live.Records().TakeDirty(ctx)
		if err != nil || len(dirty) == 0 {
			return err
		}
		for i, ns := range dirty {
			if err := e.reconcile(ctx, ns, from, to); err != nil {
				for _, again := range dirty[i:] {
					_ = e.Live.Records().MarkDirty(context.WithoutCancel(ctx), again)
				}
				return err
			}
		}
	}
}

// reconcile makes the new collection hold, of each document of ns, the
// registry's current version whole and nothing else: documents it holds
// that the registry lost are deleted, stale versions deleted, and a
// current version whose chunks the new collection lacks copied again.
// Each document is checked under its write lock, so no writer moves it
// meanwhile.
func (e *Runner) reconcile(ctx context.Context, ns string, from, to *live.Side) error {
	ids := map[string]bool{}
	for after := ""; ; {
		page, err := to.Store.ScanChunks(ctx, ns, after, 500)
		if err != nil {
			return err
		}
		for _, c := range page {
			ids[c.DocumentID] = true
		}
		if len(page) < 500 {
			break
		}
		after = page[len(page)-1].ID
	}
	for cursor := uint64(0); ; {
		docs, next, err := e.Registry.Scan(ctx, ns, cursor, 500)
		if err != nil {
			return err
		}
		for _, d := range docs {
			ids[d.ID] = true
		}
		if cursor = next; cursor == 0 {
			break
		}
	}
	for id := range ids {
		if err := e.reconcileDocument(ctx, ns, id, from, to); err != nil {
			return err
		}
	}
	return e.reconcileImages(ctx, ns, from, to)
}

// reconcileImages copies again the pictures of current versions that the
// new collection lacks (their write to it failed during the switch); the
// per-document pass has deleted those of stale versions already.
func (e *Runner) reconcileImages(ctx context.Context, ns string, from, to *live.Side) error {
	have := map[string]bool{}
	if err := scanImages(ctx, to.Store, ns, func(im ragd.Image) { have[im.ID] = true }); err != nil {
		return err
	}
	var candidates []ragd.Image
	err := scanImages(ctx, from.Store, ns, func(im ragd.Image) {
		if !have[im.ID] {
			candidates = append(candidates, im)
		}
	})
	if err != nil || len(candidates) == 0 {
		return err
	}
	ids := make([]string, 0, len(candidates))
	for _, im := range candidates {
		ids = append(ids, im.DocumentID)
	}
	current, err := e.Registry.CurrentHashes(ctx, ns, ids)
	if err != nil {
		return err
	}
	missing := slices.DeleteFunc(candidates, func(im ragd.Image) bool { return current[im.DocumentID] != im.ContentHash })
	for batch := range slices.Chunk(missing, max(to.BatchSize, 1)) {
		if err := live.UpsertImages(ctx, to, to.Bulk, ns, batch); err != nil {
			return err
		}
	}
	return nil
}

// scanImages calls fn with every picture of ns in s.
func scanImages(ctx context.Context, s ragd.ChunkScanner, ns string, fn func(ragd.Image)) error {
	for after := ""; ; {
		page, err := s.ScanImages(ctx, ns, after, 500)
		if err != nil {
			return err
		}
		for _, im := range page {
			fn(im)
		}
		if len(page) < 500 {
			return nil
		}
		after = page[len(page)-1].ID
	}
}

func (e *Runner) reconcileDocument(ctx context.Context, ns, id string, from, to *live.Side) error {
	lease, err := e.Versions.Lock(ctx, ns, id)
	if err != nil {
		return err
	}
	defer lease.Release()
	doc, err := e.Registry.GetAny(ctx, ns, id)
	if ragd.KindOf(err) == ragd.KindNotFound {
		_, err = versions.DeleteDocumentIn(ctx, to.Store, lease, ns, id)
		return err
	}
	if err != nil {
		return err
	}
	if _, err := versions.DeleteStaleIn(ctx, to.Store, lease, ns, id, doc.ContentHash); err != nil {
		return err
	}
	want, err := from.Store.CountVersion(ctx, ns, id, doc.ContentHash)
	if err != nil {
		return err
	}
	if len(doc.Access) > 0 {
		// The copy may have read the chunks before their access changed:
		// restricted ones are rewritten, so none is wider than the record.
		if _, err := to.Store.SetAccess(ctx, ns, id, doc.ContentHash, doc.Access); err != nil {
			return err
		}
	}
	have, err := to.Store.CountVersion(ctx, ns, id, doc.ContentHash)
	if err != nil || have == want {
		return err
	}
	for start := 0; start < want; start += 200 {
		chunks, err := from.Store.DocumentChunks(ctx, ns, id, doc.ContentHash, start, 200)
		if err != nil {
			return err
		}
		if len(chunks) == 0 {
			break
		}
		if err := live.UpsertChunks(ctx, to, to.Bulk, ns, chunks); err != nil {
			return err
		}
	}
	return nil
}
