package library

import (
	"context"
	"slices"

	"golang.org/x/sync/errgroup"

	"ragd"
	"ragd/jobs"
	"ragd/live"
)

// copyAll re-embeds every namespace's chunks and pictures from the text
// the old collection holds into the new one, from the switch's checkpoint
// on. Each checkpoint is written once the batches before it are all in
// the new collection, so a run that dies resumes without a gap (batches
// after it are written again: ids are deterministic).
func (e *Embedders) copyAll(ctx context.Context, sw *live.Switch, from, to *live.Side, rep *jobs.Reporter) error {
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
	e        *Embedders
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
		err := copyPages(ctx, c, ns, after, batch,
			func(after string) ([]ragd.Chunk, error) { return c.from.Store.ScanChunks(ctx, ns, after, batch) },
			func(ch ragd.Chunk) string { return ch.ID },
			func(ctx context.Context, page []ragd.Chunk) error {
				return live.UpsertChunks(ctx, c.to, c.to.Bulk, ns, page)
			},
			func(cursor string, n int) { c.done += n; c.checkpoint(ctx, ns, cursor, false) })
		if err != nil {
			return err
		}
		after = ""
		c.checkpoint(ctx, ns, "", true)
	}
	err := copyPages(ctx, c, ns, after, batch,
		func(after string) ([]ragd.Image, error) { return c.from.Store.ScanImages(ctx, ns, after, batch) },
		func(im ragd.Image) string { return im.ID },
		func(ctx context.Context, page []ragd.Image) error {
			return live.UpsertImages(ctx, c.to, c.to.Bulk, ns, page)
		},
		func(cursor string, _ int) { c.checkpoint(ctx, ns, cursor, true) })
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
	_, err := c.e.Live.Records().Update(ctx, false, func(s *live.State) error {
		if s.Switch == nil || s.Switch.JobID != c.id {
			return ErrSwitchGone
		}
		s.Switch.Done, s.Switch.Total, s.Switch.Copied = c.done, c.total, c.copied
		s.Switch.Namespace, s.Switch.After, s.Switch.Images = ns, after, images
		return nil
	})
	if err != nil {
		c.e.Log.Warn("embedder switch checkpoint not recorded; a restart copies again from the one before", "job_id", c.id, "error", err)
	}
}

// copyPages copies one namespace's items from after on: Concurrency pages
// read in turn, then written at once, then a checkpoint after the last.
func copyPages[T any](ctx context.Context, c *copier, ns, after string, batch int,
	scan func(after string) ([]T, error), idOf func(T) string,
	write func(context.Context, []T) error, checkpoint func(cursor string, n int)) error {
	k := max(c.e.Concurrency, 1)
	for {
		var pages [][]T
		cursor, last := after, false
		for len(pages) < k && !last {
			var page []T
			if err := c.e.retry(ctx, c.id, func() (err error) { page, err = scan(cursor); return err }); err != nil {
				return err
			}
			last = len(page) < batch
			if len(page) > 0 {
				pages = append(pages, page)
				cursor = idOf(page[len(page)-1])
			}
		}
		if len(pages) == 0 {
			return nil
		}
		g, gctx := errgroup.WithContext(ctx)
		n := 0
		for _, page := range pages {
			n += len(page)
			g.Go(func() error { return c.e.retry(gctx, c.id, func() error { return write(gctx, page) }) })
		}
		if err := g.Wait(); err != nil {
			return err
		}
		after = cursor
		checkpoint(cursor, n)
		if last {
			return nil
		}
	}
}

// reconcileDirty checks the namespaces something was deleted from (or
// failed to reach the new collection) during the copy against the
// registry, until none is left: the copy may have read a version a delete
// then removed from both and written it back after.
func (e *Embedders) reconcileDirty(ctx context.Context, from, to *live.Side) error {
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
func (e *Embedders) reconcile(ctx context.Context, ns string, from, to *live.Side) error {
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
	return nil
}

func (e *Embedders) reconcileDocument(ctx context.Context, ns, id string, from, to *live.Side) error {
	lease, err := e.Versions.Lock(ctx, ns, id)
	if err != nil {
		return err
	}
	defer lease.Release()
	doc, err := e.Registry.Get(ctx, ns, id)
	if ragd.KindOf(err) == ragd.KindNotFound {
		_, err = to.Store.DeleteDocument(ctx, ns, id)
		return err
	}
	if err != nil {
		return err
	}
	if _, err := to.Store.DeleteStale(ctx, ns, id, doc.ContentHash); err != nil {
		return err
	}
	want, err := from.Store.CountVersion(ctx, ns, id, doc.ContentHash)
	if err != nil {
		return err
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
