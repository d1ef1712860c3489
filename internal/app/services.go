package app

import (
	"context"

	"path/filepath"

	"golang.org/x/sync/semaphore"

	"ragd"
	"ragd/internal/adapter/websearch"
	"ragd/internal/catalog/registry"
	"ragd/internal/catalog/sources"
	"ragd/internal/catalog/versions"
	"ragd/internal/catalog/vocab"
	"ragd/internal/ingest"
	"ragd/internal/ingest/guard"
	"ragd/internal/ingest/pdftext"
	"ragd/internal/jobs/dirsync"
	"ragd/internal/jobs/gitsync"
	"ragd/internal/jobs/importjob"
	"ragd/internal/jobs/s3sync"
	"ragd/internal/jobs/sourcesync"
	"ragd/internal/jobs/worker"
	"ragd/internal/library"
	"ragd/internal/library/archivesvc"
	"ragd/internal/library/sourcesvc"
	"ragd/internal/platform/cache"
	"ragd/internal/platform/config"
	"ragd/internal/platform/keyspace"
	"ragd/internal/platform/resilience"
	"ragd/internal/retrieval/answer"
	"ragd/internal/retrieval/search"
)

// services are the guarded dependencies and shared parts the services are
// built from.
type services struct {
	cfg         config.Config
	store       ragd.ChunkStore
	embedder    ragd.Embedder
	chat        ragd.ChatModel     // nil without a chat model
	web         websearch.Provider // nil without a provider
	reranker    ragd.Reranker      // nil when reranking is off
	registry    *registry.Registry
	generations *cache.Generations
	roots       *guard.Roots
	fetcher     *guard.Fetcher
}

// assemble builds the search, answer and library services and the worker
// pipeline, each holding only its own settings and collaborators.
func (a *App) assemble(d services) {
	cfg := d.cfg
	a.Chunks = d.store
	var results *cache.Results
	if cfg.Cache.Enabled {
		results = cache.NewResults(a.KV.Client(), keyspace.New(cfg.Redis.KeyPrefix), cfg.Cache.TTL, d.generations, a.Log, a.Metrics.ObserveCache)
	}
	words := vocab.New(a.KV.Client(), keyspace.New(cfg.Redis.KeyPrefix))
	th := thesaurus(cfg, a.Log)
	a.Search = &search.Service{Store: d.store, Embedder: d.embedder, Registry: d.registry, Generations: d.generations,
		Cache: results, QueryVectors: search.NewQueryVectors(cfg.Search.QueryCacheSize), Vocab: words, Thesaurus: th,
		Models: search.Models{Rewriter: d.chat, Reranker: d.reranker, RerankFallback: a.Metrics.RerankFallbacks(),
			RedisFallback: a.Metrics.RedisFallbacks()},
		Log: a.Log, Settings: search.Settings{Alpha: cfg.Search.Alpha, MMR: cfg.Search.MMR, MMRLambda: cfg.Search.MMRLambda,
			RRFK: cfg.Search.RRFK, Retrieval: retrieval(cfg.Search), RerankCandidates: cfg.Rerank.Candidates}}
	a.Answer = &answer.Service{Search: a.Search, LLM: d.chat, Web: d.web, Cache: results, Log: a.Log,
		Settings: answer.Settings{MinScore: cfg.Answer.MinScore, MaxSentences: cfg.Answer.MaxSentences,
			Candidates: cfg.Answer.Candidates, AgentMaxSteps: cfg.Answer.AgentMaxSteps}}
	keeper := &versions.Keeper{Store: d.store, Registry: d.registry, Generations: d.generations, Vocab: words, Log: a.Log}
	a.Library = &library.Service{Store: d.store, Embedder: d.embedder, Registry: d.registry, Versions: keeper,
		Queue: a.Queue, Roots: d.roots, Fetcher: d.fetcher, MaxDirectoryFiles: cfg.Ingest.MaxDirectoryFiles,
		WaitTimeout: cfg.HTTP.WaitTimeout, MaxTextBytes: cfg.Ingest.MaxDocumentTextBytes, Log: a.Log,
		Uploads: &library.Uploads{Dir: uploadsDir(cfg), MaxFileBytes: cfg.Ingest.MaxFileBytes, MaxFiles: cfg.Ingest.MaxUploadFiles}}
	a.Archiver = &archivesvc.Archiver{Store: d.store, Embedder: d.embedder, Registry: d.registry, Versions: keeper,
		Queue: a.Queue, Dir: filepath.Join(cfg.Data.Dir, "imports"), MaxBytes: cfg.Import.MaxBytes,
		PageSize: cfg.Weaviate.BatchSize, Log: a.Log}
	a.Imports = &importjob.Runner{Store: d.store, Embedder: d.embedder, Registry: d.registry, Versions: keeper,
		PageSize: cfg.Weaviate.BatchSize, Log: a.Log}
	a.Pipeline = &worker.Pipeline{Store: batchWriter(cfg, d.store), Vectors: d.store, Embedder: d.embedder, Registry: d.registry, Versions: keeper,
		Queue: a.Queue, Reader: &ingest.Reader{Roots: d.roots, Fetcher: d.fetcher, MaxFileBytes: cfg.Ingest.MaxFileBytes,
			Parser: ingest.Parser{Limits: pdftext.Limits{MaxPages: cfg.Ingest.MaxPages, Timeout: cfg.Ingest.ParseTimeout,
				MemoryBytes: cfg.Ingest.ParseMemoryBytes}, OCR: ocrOptions(cfg.Ingest)}, UploadsDir: uploadsDir(cfg),
			Parses: slots(cfg.Ingest.ParseConcurrency)},
		Chunking:          ingest.ChunkOptions{Tokens: cfg.Ingest.ChunkTokens, Overlap: cfg.Ingest.ChunkOverlap},
		Bounds:            ingest.Bounds{MaxChunks: cfg.Ingest.MaxDocumentChunks, MaxTextBytes: cfg.Ingest.MaxDocumentTextBytes},
		MaxDirectoryFiles: cfg.Ingest.MaxDirectoryFiles, EmbedBatch: cfg.Embed.BatchSize,
		Embeds: slots(cfg.Embed.Concurrency), Log: a.Log}
	if cfg.Ingest.RelatedWords {
		a.Pipeline.Thesaurus = th
	}
	a.assembleSources(d, keeper)
}

// assembleSources builds the sources' service and gives the pipeline
// their syncs: git's clones under <data.dir>/sources, staged blobs and
// objects with the uploads, s3's ETags in Redis; the ingest fetcher's
// address rules (ingest.allow_private_urls) govern every remote.
func (a *App) assembleSources(d services, keeper *versions.Keeper) {
	cfg := d.cfg
	git := &gitsync.Syncer{Dir: filepath.Join(cfg.Data.Dir, "sources"), UploadsDir: uploadsDir(cfg), Roots: d.roots,
		Fetcher: d.fetcher, Registry: d.registry, MaxRepoBytes: cfg.Sources.GitMaxRepoBytes, MaxFiles: cfg.Sources.GitMaxFiles,
		MaxFileBytes: cfg.Ingest.MaxFileBytes, WebURL: cfg.Sources.GitWebURL, Timeout: cfg.Sources.GitTimeout,
		CAFile: cfg.Sources.GitCAFile}
	kinds := sourcesync.Kinds{ragd.SourceGit: git}
	a.S3 = &s3sync.Syncer{UploadsDir: uploadsDir(cfg), Fetcher: d.fetcher, Registry: d.registry, KV: a.KV,
		Keys: keyspace.New(cfg.Redis.KeyPrefix), MaxObjects: cfg.Sources.S3MaxObjects, MaxObjectBytes: cfg.Ingest.MaxFileBytes,
		Timeout: cfg.Sources.S3Timeout}
	kinds[ragd.SourceS3] = a.S3
	kinds[ragd.SourceWeb] = a.webSyncer(d)
	kinds[ragd.SourceDirectory] = &dirsync.Syncer{Registry: d.registry, Roots: d.roots, MaxFiles: cfg.Ingest.MaxDirectoryFiles}
	a.Sources = &sourcesvc.Sources{Store: &sources.Store{KV: a.KV, Keys: keyspace.New(cfg.Redis.KeyPrefix)}, Kinds: kinds,
		Roots: d.roots, Queue: a.Queue, Versions: keeper, MinEvery: cfg.Sources.MinEvery, Jitter: cfg.Sources.ScheduleJitter}
	a.Pipeline.Kinds, a.Pipeline.Sources, a.Git = kinds, a.Sources.Store, git
	a.Sources.Watch, a.Sources.Directories = cfg.Watch, a.Library
}

// slots bounds work to n at once; n ≤ 0 (a configuration built in code
// rather than loaded, which validation would refuse) bounds nothing.
func slots(n int) *semaphore.Weighted {
	if n <= 0 {
		return nil
	}
	return semaphore.NewWeighted(int64(n))
}

// batchWriter is the store through which a worker process's jobs write
// their chunks, sharing Weaviate batches (worker.batch_wait).
func batchWriter(cfg config.Config, store ragd.ChunkStore) ragd.ChunkWriter {
	w := &worker.BatchWriter{ChunkWriter: store, Size: cfg.Weaviate.BatchSize, Wait: cfg.Worker.BatchWait}
	if t, ok := store.(interface{ WriteTarget(context.Context) any }); ok {
		w.Target = t.WriteTarget
	}
	return w
}

// uploadsDir is where uploaded bytes are kept: <data.dir>/uploads. Jobs
// name the bytes by hash only, so API and worker processes need only
// share data.dir.
func uploadsDir(cfg config.Config) string { return filepath.Join(cfg.Data.Dir, "uploads") }

// ocrOptions maps ingest.ocr and ingest.ocr_languages onto the parser's.
func ocrOptions(c config.Ingest) pdftext.OCR {
	return pdftext.OCR{Off: c.OCR == "off", Languages: c.OCRLanguages}
}

// usedBreakers are the guards of the dependencies this ragd uses: the
// optional chat model's, web search's and reranker's only when configured,
// since a breaker that can never trip would suggest a dependency ragd does
// not use.
func usedBreakers(g resilience.Guards, chat, web, reranker bool) []*resilience.Guard {
	var out []*resilience.Guard
	for _, x := range g.All() {
		if (x == g.LLM && !chat) || (x == g.WebSearch && !web) || (x == g.Reranker && !reranker) {
			continue
		}
		out = append(out, x)
	}
	return out
}
