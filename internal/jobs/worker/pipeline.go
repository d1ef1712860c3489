// Package worker runs ragd's Asynq server: it loads, chunks, embeds and writes
// documents, fans directories out into one job per file, carries out
// directory and source syncs (the plan of syncplan or of the source's
// kind), and hands import and embedder-switch jobs to their runners
// (importjob, switchjob).
package worker

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"time"

	"github.com/hibiken/asynq"
	"golang.org/x/sync/semaphore"

	"ragd"
	"ragd/internal/catalog/registry"
	"ragd/internal/catalog/sources"
	"ragd/internal/catalog/versions"
	"ragd/internal/ingest"
	"ragd/internal/ingest/document"
	"ragd/internal/jobs"
	"ragd/internal/jobs/sourcesync"
	"ragd/internal/platform/telemetry"
)

// Pipeline is the ingest work itself, independent of Asynq.
type Pipeline struct {
	// Store and Embedder come guarded (breaker, timeout, retries).
	Store    ragd.ChunkWriter
	Embedder ragd.Embedder
	Registry *registry.Registry
	// Versions makes each written version current, removes what a sync
	// prunes and discards what a failed run wrote.
	Versions *versions.Keeper
	Queue    *jobs.Queue
	// Reader reads and parses each job's source within the ingest limits.
	Reader   *ingest.Reader
	Chunking ingest.ChunkOptions
	// Bounds fail a document past ingest.max_document_chunks or
	// ingest.max_document_text_bytes, before any write and without
	// retries.
	Bounds            ingest.Bounds
	MaxDirectoryFiles int
	// EmbedBatch is how many chunks are embedded and written per step; each
	// step reports progress.
	EmbedBatch int
	// Embeds, when set, bounds the batches the process's jobs embed at
	// once (embed.concurrency), waited for before the guarded call, whose
	// timeout it must not use up.
	Embeds *semaphore.Weighted
	// Thesaurus, when set, gives each chunk the words it relates to the
	// chunk's own (ragd.Chunk.Related).
	Thesaurus ragd.Thesaurus
	// Vectors, when set, reads the vectors a moved document carries over
	// (move.go): the guarded chunk store.
	Vectors interface {
		DocumentVectors(ctx context.Context, namespace, documentID, contentHash string, from, limit int) ([]ragd.Chunk, error)
	}
	// Kinds and Sources, when set, run sources' syncs (source.go).
	Kinds   sourcesync.Kinds
	Sources *sources.Store
	Log     *slog.Logger
}

// claimCommit asks the queue whether the job may commit; ErrCancelled if it
// was cancelled. A pipeline run outside a queue's task (tests) may.
func (p *Pipeline) claimCommit(ctx context.Context, pl jobs.DocumentPayload) error {
	if p.Queue == nil {
		return nil
	}
	return p.Queue.ClaimCommit(ctx, jobs.DocumentRef(ctx, pl))
}

// IndexDocument loads the payload's source and makes it the document's current
// version. New chunks are written before the registry switches to them and the
// old version's chunks are deleted after, so a search sees either the old
// version or the new one, never a mix.
func (p *Pipeline) IndexDocument(ctx context.Context, pl jobs.DocumentPayload, rep *jobs.Reporter) (ragd.DocumentResult, error) {
	res, err := p.indexDocument(ctx, pl, rep)
	if err == nil {
		err = p.finishMove(ctx, pl, &res)
	}
	return res, err
}

func (p *Pipeline) indexDocument(ctx context.Context, pl jobs.DocumentPayload, rep *jobs.Reporter) (ragd.DocumentResult, error) {
	if b, ok := p.Store.(interface{ Enter() func() }); ok {
		defer b.Enter()() // its writes may share batches with the other jobs' (BatchWriter)
	}
	res := ragd.DocumentResult{DocumentID: pl.DocumentID, Source: pl.Source}
	content, err := p.read(ctx, pl, rep)
	if err != nil {
		return res, err
	}
	raw, loaded := content.Raw, content.Doc
	res.PagesOCR = loaded.OCRPages
	pieces, err := p.pieces(ctx, pl, loaded)
	if err != nil {
		return res, err
	}
	hash := ragd.ContentHash([]byte(loaded.NormalizedText()))
	res.ContentHash = hash

	lockCtx, span := telemetry.Start(ctx, "ingest.lock")
	lease, err := p.Versions.Lock(lockCtx, pl.Namespace, pl.DocumentID)
	span.End(err)
	if err != nil {
		return res, err
	}
	defer lease.Release()

	prev, err := p.Registry.GetAny(ctx, pl.Namespace, pl.DocumentID)
	if err != nil && ragd.KindOf(err) != ragd.KindNotFound {
		return res, err
	}
	if err := ragd.ViewerAudience(pl.Viewer).MayIndex(prev, pl.Access); err != nil {
		return res, err
	}
	access := pl.AccessFor(prev)
	if !pl.Force {
		if dup, err := p.duplicate(ctx, lease, pl, prev, hash, access, &res); err != nil || dup {
			if err == nil {
				err = p.settleDuplicate(ctx, pl, prev, content, pieces, hash)
			}
			return res, err
		}
	}

	now := time.Now().UTC()
	chunks := p.chunkVersion(pl, pieces, loaded, hash, access, now)
	res.VectorsCarried = p.carryVectors(ctx, pl, hash, chunks)
	if err := p.write(ctx, pl.Namespace, chunks, rep); err != nil {
		return res, err
	}
	imgCtx, span := telemetry.Start(ctx, "ingest.images")
	res.ImagesIndexed, err = p.indexImages(imgCtx, pl, loaded, hash, access)
	span.End(err)
	if err != nil {
		return res, err
	}

	doc := ragd.Document{
		ID: pl.DocumentID, Namespace: pl.Namespace, Source: pl.Source, SourceType: loaded.SourceType,
		ContentHash: hash, RawHash: ragd.ContentHash(raw), Title: firstNonEmpty(pl.Title, loaded.Title),
		Tags: pl.Tags, Access: access, Chunks: len(chunks), CreatedAt: now, UpdatedAt: now,
		WebURL: pl.WebURL, Commit: pl.Commit,
	}
	if prev != nil {
		doc.CreatedAt = prev.CreatedAt
	}
	setFileStat(&doc, content)
	if err := p.commit(ctx, lease, pl, prev, doc, chunks, &res); err != nil {
		return res, err
	}
	res.ChunksIndexed = len(chunks)
	p.Log.InfoContext(ctx, "document indexed", "kb_name", pl.Namespace, "document_id", pl.DocumentID,
		"source", pl.Source, "chunks", len(chunks), "replaced", res.Replaced)
	return res, nil
}

// pieces chunks a loaded version within p.Bounds, in the span
// ingest.chunk; a document past them fails, naming its source, the
// setting and the figures.
func (p *Pipeline) pieces(ctx context.Context, pl jobs.DocumentPayload, loaded *document.Loaded) ([]ingest.Piece, error) {
	_, span := telemetry.Start(ctx, "ingest.chunk")
	pieces, err := ingest.ChunkBounded(loaded, p.Chunking, p.Bounds)
	if err != nil {
		err = &ragd.Error{Kind: ragd.KindOf(err), Message: pl.Source, Err: err}
	}
	if err == nil && span.Recording() {
		span.Set(telemetry.Int(telemetry.KeyChunks, len(pieces)))
	}
	span.End(err)
	return pieces, err
}

// chunkVersion makes a loaded version's pieces its chunks, shared with
// access and, with a thesaurus, given their related words.
func (p *Pipeline) chunkVersion(pl jobs.DocumentPayload, pieces []ingest.Piece, loaded *document.Loaded, hash string, access []string, now time.Time) []ragd.Chunk {
	chunks := p.chunk(pl, pieces, loaded.SourceType, hash, now)
	for i := range chunks {
		chunks[i].Access = access
		if p.Thesaurus != nil {
			chunks[i].Related = relatedWords(chunks[i], p.Thesaurus)
		}
	}
	return chunks
}

// read reads and parses a document job's source, in the span
// ingest.read, with a span per OCR page.
func (p *Pipeline) read(ctx context.Context, pl jobs.DocumentPayload, rep *jobs.Reporter) (c ingest.Content, err error) {
	ctx, span := telemetry.Start(ctx, "ingest.read")
	pages := &ocrPages{ctx: ctx, last: time.Now()}
	c, err = p.Reader.Read(ctx, ingest.Source{FilePath: pl.FilePath, URL: pl.URL, Text: pl.Text,
		Upload: pl.Upload, Filename: pl.Filename, Title: pl.Title,
		Progress: func(done, total int) {
			rep.Progress(done, total, "pages")
			pages.heard(done, total)
		}})
	if err == nil && span.Recording() {
		span.Set(telemetry.String(telemetry.KeySourceType, string(c.Doc.SourceType)), telemetry.Int("ragd.document.bytes", len(c.Raw)),
			telemetry.Int("ragd.document.pages_ocr", c.Doc.OCRPages))
	}
	span.End(err)
	return c, err
}

// commit makes doc, whose chunks are written, the current version
// (versions.Keeper.Commit), once the queue has agreed: the claim is the
// last moment a cancel can stop the job.
func (p *Pipeline) commit(ctx context.Context, lease *registry.Lease, pl jobs.DocumentPayload, prev *ragd.Document, doc ragd.Document, chunks []ragd.Chunk, res *ragd.DocumentResult) (err error) {
	ctx, span := telemetry.Start(ctx, "ingest.commit")
	defer func() {
		if span.Recording() {
			span.Set(telemetry.Int(telemetry.KeyChunks, len(chunks)), telemetry.Int("ragd.chunks.replaced", res.Replaced))
		}
		span.End(err)
	}()
	if err := p.claimCommit(ctx, pl); err != nil {
		return err
	}
	words := versions.Words{Texts: vocabularyTexts(chunks)}
	if retried, ok := asynq.GetRetryCount(ctx); ok && retried == 0 && prev == nil {
		return p.Versions.CommitNew(ctx, lease, doc, words)
	}
	res.Replaced, err = p.Versions.Commit(ctx, lease, doc, words)
	return err
}

// settleDuplicate ends a job whose content is already indexed: a cancel
// from here on is refused, and a current version left unfinished by an
// earlier run gets its words learned and its file's time recorded.
func (p *Pipeline) settleDuplicate(ctx context.Context, pl jobs.DocumentPayload, prev *ragd.Document, content ingest.Content, pieces []ingest.Piece, hash string) error {
	if err := p.claimCommit(ctx, pl); err != nil {
		return err
	}
	if prev == nil || prev.ContentHash != hash {
		return nil
	}
	err := p.Versions.FinishLearning(ctx, pl.Namespace, pl.DocumentID, hash, func() []string {
		return vocabularyTexts(p.chunk(pl, pieces, content.Doc.SourceType, hash, time.Now().UTC()))
	})
	if err != nil {
		return err
	}
	return p.recordFileStat(ctx, *prev, content)
}

// chunk makes a version's pieces its chunks.
func (p *Pipeline) chunk(pl jobs.DocumentPayload, pieces []ingest.Piece, typ ragd.SourceType, hash string, now time.Time) []ragd.Chunk {
	chunks := make([]ragd.Chunk, len(pieces))
	for i, pc := range pieces {
		chunks[i] = ragd.Chunk{
			ID: ragd.ChunkID(pl.DocumentID, hash, i), DocumentID: pl.DocumentID, Namespace: pl.Namespace,
			Source: pl.Source, SourceType: typ, ContentHash: hash, Index: i,
			Text: pc.Text, Path: pc.Path, Level: pc.Level, Summary: pc.Summary, Page: pc.Page, OCR: pc.OCR,
			Tags: pl.Tags, Timestamp: now,
		}
	}
	return chunks
}

// duplicate reports whether the namespace already holds this content, either
// as this document's current version or as another document. It also finishes
// any cleanup a crashed earlier run left behind.
//
// The same content shared with other groups is not a duplicate of
// another document (each keeps its own access); this document's current
// version given a new access keeps its chunks, rewritten to it
// (versions.Keeper.Share).
func (p *Pipeline) duplicate(ctx context.Context, lease *registry.Lease, pl jobs.DocumentPayload, prev *ragd.Document, hash string, access []string, res *ragd.DocumentResult) (bool, error) {
	if prev != nil && prev.ContentHash == hash {
		res.DedupHit, res.ChunksIndexed = true, prev.Chunks
		if !slices.Equal(prev.Access, access) {
			if _, err := p.Versions.Share(ctx, lease, *prev, access); err != nil {
				return true, err
			}
		}
		_, err := p.Versions.DeleteStale(ctx, lease, pl.Namespace, pl.DocumentID, hash)
		return true, err
	}
	if pl.Distinct {
		return false, nil
	}
	owner, err := p.Registry.ByContentHash(ctx, pl.Namespace, hash)
	if err != nil || owner == "" || owner == pl.DocumentID {
		return false, err
	}
	d, err := p.Registry.GetAny(ctx, pl.Namespace, owner)
	if err != nil || !slices.Equal(d.Access, access) {
		return false, nil // gone meanwhile, or shared otherwise: index this one
	}
	res.DedupHit, res.DocumentID, res.ChunksIndexed = true, owner, d.Chunks
	return true, nil
}

// write embeds and upserts chunks step by step, reporting progress.
func (p *Pipeline) write(ctx context.Context, namespace string, chunks []ragd.Chunk, rep *jobs.Reporter) (err error) {
	ctx, span := telemetry.Start(ctx, "ingest.write")
	if span.Recording() {
		span.Set(telemetry.Int(telemetry.KeyChunks, len(chunks)))
	}
	defer func() { span.End(err) }()
	step := max(p.EmbedBatch, 1)
	if len(chunks) > step { // a document written in one step reports once, at its end
		rep.Progress(0, len(chunks), "chunks")
	}
	for start := 0; start < len(chunks); start += step {
		batch := chunks[start:min(start+step, len(chunks))]
		if !carried(batch) {
			if err := p.embed(ctx, batch); err != nil {
				return fmt.Errorf("embed: %w", err)
			}
		}
		// Finished even if the job is cancelled meanwhile (weaviate.timeout
		// bounds each attempt), so that what the run wrote is in Weaviate by
		// the time its cleanup looks.
		if err := p.Store.Upsert(context.WithoutCancel(ctx), namespace, batch); err != nil {
			return err
		}
		rep.Progress(start+len(batch), len(chunks), "chunks")
	}
	return nil
}

// embed embeds a batch of chunks within the process's embedding slots.
func (p *Pipeline) embed(ctx context.Context, batch []ragd.Chunk) error {
	if p.Embeds != nil {
		if err := p.Embeds.Acquire(ctx, 1); err != nil {
			return err
		}
		defer p.Embeds.Release(1)
	}
	return ragd.EmbedChunks(ctx, p.Embedder, batch)
}

// vocabularyTexts are the texts a version's words are learned from: the
// heading trail and body of each chunk, what BM25 searches.
func vocabularyTexts(chunks []ragd.Chunk) []string {
	texts := make([]string, len(chunks))
	for i, c := range chunks {
		texts[i] = c.EmbeddingText()
	}
	return texts
}

func firstNonEmpty(s ...string) string {
	for _, v := range s {
		if v != "" {
			return v
		}
	}
	return ""
}

// setFileStat records the file's size and time as read (file sources only).
func setFileStat(d *ragd.Document, c ingest.Content) bool {
	if c.ModTime.IsZero() {
		return false
	}
	t := c.ModTime.UTC()
	changed := d.FileSize != c.Size || d.FileModTime == nil || !d.FileModTime.Equal(t)
	d.FileSize, d.FileModTime = c.Size, &t
	return changed
}

// recordFileStat updates an unchanged document's file size and time when
// the file was touched but not changed, so the next sync skips it unread
// instead of hashing it again.
func (p *Pipeline) recordFileStat(ctx context.Context, d ragd.Document, c ingest.Content) error {
	if !setFileStat(&d, c) {
		return nil
	}
	return p.Registry.RecordFileStat(ctx, d)
}
