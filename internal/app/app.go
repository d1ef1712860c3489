// Package app assembles ragd from its configuration: the Redis client, the
// embedder, the store, the service layer, the worker pipeline and the HTTP
// handler. cmd/ragd and the end-to-end tests build ragd the same way.
package app

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"os"

	"github.com/hibiken/asynqmon"

	"ragd"
	"ragd/internal/adapter/llm"
	"ragd/internal/adapter/rerank"
	"ragd/internal/adapter/websearch"
	"ragd/internal/adapter/wordnet"
	"ragd/internal/authn"
	"ragd/internal/authn/oauth"
	"ragd/internal/catalog/registry"
	"ragd/internal/ingest/guard"
	"ragd/internal/ingest/pdftext"
	"ragd/internal/jobs"
	"ragd/internal/jobs/gitsync"
	"ragd/internal/jobs/importjob"
	"ragd/internal/jobs/s3sync"
	"ragd/internal/jobs/switchjob"
	"ragd/internal/jobs/worker"
	"ragd/internal/library"
	"ragd/internal/library/archivesvc"
	"ragd/internal/library/embeddersvc"
	"ragd/internal/library/sourcesvc"
	"ragd/internal/platform/cache"
	"ragd/internal/platform/config"
	"ragd/internal/platform/keyspace"
	"ragd/internal/platform/kv"
	"ragd/internal/platform/promexport"
	"ragd/internal/platform/resilience"
	"ragd/internal/platform/telemetry"
	"ragd/internal/retrieval/answer"
	"ragd/internal/retrieval/search"
	"ragd/internal/server/api"
	"ragd/internal/server/mcpserver"
	"ragd/internal/server/websearchapi"
	"ragd/internal/store/live"
)

// App is one assembled ragd process.
type App struct {
	Config config.Config
	Log    *slog.Logger
	// KV is the Redis every part of the process shares.
	KV *kv.Store
	Services
	Pipeline *worker.Pipeline
	Queue    *jobs.Queue
	Metrics  *promexport.Metrics
	MCP      *mcpserver.Server
	Auth     *authn.Authenticator
	// OAuth is ragd's own authorization server (auth.mode oauth), else nil.
	OAuth *oauth.Server
	// Live follows which embedder and collection are live.
	Live *live.Holder
	// Telemetry traces requests, tool calls and jobs; nil when off.
	Telemetry *telemetry.Provider
	// hooks report every guard's calls and state changes.
	hooks resilience.Hooks
	// switches runs the embedder switch jobs the worker takes.
	switches *switchjob.Runner
}

// Services are the services REST, MCP and the worker adapt.
type Services struct {
	Search  *search.Service
	Answer  *answer.Service
	Library *library.Service
	// Archiver exports namespaces and takes archives to import.
	Archiver *archivesvc.Archiver
	// Imports runs the import jobs the worker takes.
	Imports *importjob.Runner
	Probe   *library.Probe
	// Chunks is the guarded chunk store the services share, for tools and
	// tests that read or write it directly.
	Chunks ragd.ChunkStore
	// Embedders reports and switches the live embedder.
	Embedders *embeddersvc.Embedders
	// Sources keeps the sources synced from elsewhere (POST /sources).
	Sources *sourcesvc.Sources
	// Git syncs the git sources (one of Sources.Kinds).
	Git *gitsync.Syncer
	// S3 syncs the s3 sources (one of Sources.Kinds).
	S3 *s3sync.Syncer
}

// NewLogger returns the slog logger the config asks for, writing to stderr.
func NewLogger(cfg config.Log) *slog.Logger {
	var level slog.Level
	_ = level.UnmarshalText([]byte(cfg.Level))
	opts := &slog.HandlerOptions{Level: level}
	if cfg.Format == "json" {
		return slog.New(slog.NewJSONHandler(os.Stderr, opts))
	}
	return slog.New(slog.NewTextHandler(os.Stderr, opts))
}

// New connects to Redis and Weaviate, loads the embedder and assembles ragd.
// Every failure names the setting or service at fault.
func New(ctx context.Context, cfg config.Config, log *slog.Logger) (*App, error) {
	return NewWith(ctx, cfg, log, Deps{})
}

// Deps are dependencies NewWith takes as given instead of building them
// from the config: tests run the services on an in-memory store and a
// stand-in embedder. Each given one is guarded like the one it replaces.
type Deps struct {
	// Store replaces the Weaviate collection (weaviate.*).
	Store ragd.ChunkStore
	// NewStore, with Store, makes the store of another collection (one an
	// embedder switch builds); nil refuses switches.
	NewStore func(collection string) ragd.ChunkStore
	// Embedder replaces the configured embedder (embed.*).
	Embedder ragd.Embedder
}

// NewWith is New with the dependencies deps gives.
func NewWith(ctx context.Context, cfg config.Config, log *slog.Logger, deps Deps) (_ *App, err error) {
	tel, log, err := startTelemetry(ctx, cfg.Telemetry, log)
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			_ = tel.Shutdown(context.Background())
		}
	}()
	keys := keyspace.New(cfg.Redis.KeyPrefix)
	st, err := openRedis(ctx, cfg.Redis, keys, tel, log)
	if err != nil {
		return nil, err
	}
	rdb := st.Client()
	roots, err := guard.NewRoots(cfg.Ingest.Roots)
	if err != nil {
		return nil, fmt.Errorf("ingest.roots: %w", err)
	}
	if err := checkKeyRoots(cfg.Auth.Keys, roots); err != nil {
		return nil, err
	}
	fetcher := &guard.Fetcher{AllowPrivate: cfg.Ingest.AllowPrivateURLs, Timeout: cfg.Ingest.URLTimeout,
		MaxBytes: cfg.Ingest.MaxFileBytes, MaxURLBytes: cfg.Ingest.MaxURLBytes, UserAgent: "ragd/" + ragd.Version}
	reg := registry.New(rdb, keys)
	gens := cache.NewGenerations(rdb, keys, keys.Epoch)
	queue := jobs.NewQueue(rdb, queueOptions(cfg, log))
	a := &App{Config: cfg, Log: log, KV: st, Queue: queue, Metrics: promexport.New(queue.Collector()), Telemetry: tel}
	a.Metrics.CountCancelled(queue.CancelledCount)
	guards := a.guards()
	if a.Live, err = a.follow(ctx, deps, guards, keys); err != nil {
		return nil, err
	}
	model, err := newChatModel(cfg.LLM)
	if err != nil {
		return nil, err
	}
	web, err := newWebSearch(cfg.WebSearch)
	if err != nil {
		return nil, err
	}
	// Each dependency is guarded once, here, its guard carrying its one
	// timeout; nothing downstream mentions a breaker.
	// The store and embedder are the live ones of whatever snapshot a
	// request or job is pinned to (live), each side guarded as built.
	chunks, vectors := live.NewStore(a.Live, log), live.NewEmbedder(a.Live)
	chat := llm.Guarded(model, guards.LLM)
	reranker, err := newReranker(cfg.Rerank)
	if err != nil {
		return nil, err
	}
	a.Probe = &library.Probe{Redis: st, Store: chunks, Embedder: vectors, Breakers: usedBreakers(guards, model != nil, web != nil, reranker != nil)}
	a.assemble(services{cfg: cfg, store: chunks, embedder: vectors, chat: chat, web: websearch.Guarded(web, guards.WebSearch),
		reranker: rerank.Guarded(reranker, guards.Reranker), registry: reg, generations: gens, roots: roots, fetcher: fetcher})
	if a.MCP, err = mcpserver.New(mcpserver.Services{Search: a.Search, Answer: a.Answer, Library: a.Library, Sources: a.Sources}, a.mcpConfig(), log); err != nil {
		return nil, err
	}
	if a.Auth, err = authn.New(authConfig(cfg.Auth), log); err != nil {
		return nil, fmt.Errorf("auth: %w", err)
	}
	a.Auth.EnableSessions(authn.NewRedisSessions(st, keys), cfg.Auth.SessionTTL)
	if err := a.enableOAuth(ctx, st, keys, fetcher, log); err != nil {
		return nil, err
	}
	a.Embedders, a.switches = a.embedders(keys, reg, gens)
	a.Live.Start()
	cur := a.Live.Current().Live
	log.Info("ragd ready", "redis", kv.Describe(cfg.Redis), "weaviate", cfg.Weaviate.URL, "collection", cur.Target.Collection,
		"embedder", cur.Target.Name, "model", cur.Embedder.Name(), "dimension", cur.Embedder.Dimension(), "ingest_roots", roots.String())
	return a, nil
}

// thesaurus is WordNet, read on first use, when synonym expansion or
// related words are on: a worker that writes no related words never reads
// it. Without the database ragd still starts: searches are then not
// expanded with synonyms, chunks get no related words, and the warning
// (at start-up for missing files, at first use for unreadable ones) says
// how to install it.
func thesaurus(cfg config.Config, log *slog.Logger) ragd.Thesaurus {
	if !cfg.UsesWordNet() {
		return nil
	}
	const off = "synonym expansion and related words off: WordNet unreadable"
	if err := wordnet.Check(cfg.Search.WordNetDir); err != nil {
		log.Warn(off, "error", err)
		return nil
	}
	return wordnet.NewLazy(cfg.Search.WordNetDir, func(err error) { log.Warn(off, "error", err) })
}

// retrieval maps the search settings onto the service's retrieval techniques.
func retrieval(c config.Search) search.Retrieval {
	return search.Retrieval{RankedFusion: c.Fusion == "ranked", PathBoost: c.PathBoost, StemExpansion: c.StemExpansion,
		NeighbourExpansion: c.NeighbourExpansion, NeighbourMinSimilarity: c.NeighbourMinSimilarity, NeighbourTerms: c.NeighbourTerms,
		SynonymExpansion: c.SynonymExpansion, KeywordSynonymExpansion: c.KeywordSynonymExpansion, SynonymSenses: c.SynonymSenses, RelatedWeight: c.RelatedWeight,
		PRF: c.PRF, PRFDocs: c.PRFDocs, PRFTerms: c.PRFTerms, Rewrite: c.Rewrite}
}

func authConfig(c config.Auth) authn.Config {
	ac := authn.Config{Mode: authn.Mode(c.Mode), JWKSURL: c.JWKSURL, Issuer: c.Issuer, Audience: c.Audience,
		Scopes: c.Scopes, NamespaceClaim: c.NamespaceClaim, GroupsClaim: c.GroupsClaim, ResourceURL: c.ResourceURL, AllowedOrigins: c.AllowedOrigins}
	if c.APIKey != "" {
		ac.Keys = append(ac.Keys, authn.Key{Name: "api_key", Token: c.APIKey, Groups: []string{ragd.EveryGroup}})
	}
	for _, k := range c.Keys {
		ac.Keys = append(ac.Keys, authn.Key{Name: k.Name, Token: k.Token, Namespaces: k.Namespaces, Groups: k.Groups, Roots: k.Roots})
	}
	return ac
}

func (a *App) mcpConfig() mcpserver.Config {
	cfg := a.Config
	c := mcpserver.Config{Web: a.Answer.Web, WaitTimeout: cfg.MCP.WaitTimeout, Stateless: cfg.MCP.Stateless, MaxBodyBytes: cfg.HTTP.MaxBodyBytes,
		MaxBatchCalls: cfg.HTTP.MaxBatchCalls, DefaultNamespace: cfg.Plugins.DefaultNamespace, Telemetry: a.Telemetry, TaskRetention: cfg.Jobs.Retention}
	for _, t := range cfg.Plugins.Tools {
		p := mcpserver.Profile{Namespace: t.Namespace, Name: t.Name, Base: t.Base, Description: t.Description, KBName: t.KBName}
		if len(t.Tags)+len(t.SourceTypes)+len(t.DocumentIDs) > 0 {
			p.Filter = &search.ScopeFilter{Tags: t.Tags, SourceTypes: t.SourceTypes, DocumentIDs: t.DocumentIDs}
		}
		c.Profiles = append(c.Profiles, p)
	}
	return c
}

// newReranker is the configured reranking server's client, or nil when
// reranking is off.
func newReranker(c config.Rerank) (ragd.Reranker, error) {
	if !c.Enabled {
		return nil, nil
	}
	r, err := rerank.New(rerank.Config{Format: c.Format, BaseURL: c.BaseURL, Model: c.Model, APIKey: c.APIKey})
	if err != nil {
		return nil, fmt.Errorf("rerank: %w", err)
	}
	return r, nil
}

// Close releases the app's connections.
func (a *App) Close() {
	if a.OAuth != nil {
		a.OAuth.Close()
	}
	a.Live.Close()
	_ = a.Queue.Close()
	_ = a.KV.Close()
	a.stopTelemetry()
}

// NewWorker returns an Asynq server running the app's pipeline.
func (a *App) NewWorker() *worker.Server {
	if err := pdftext.CheckOCR(context.Background(), ocrOptions(a.Config.Ingest)); err != nil {
		a.Log.Warn("scanned PDF pages will not be read (ingest.ocr)", "error", err)
	}
	return worker.NewServer(a.KV, worker.ServerOptions{Queue: a.Config.Worker.Queue,
		Concurrency: a.Config.Worker.Concurrency, PollInterval: a.Config.Worker.PollInterval, Log: a.Log, Importer: a.Imports, Switcher: a.switches, Pin: a.Live.Pin,
		Telemetry: a.Telemetry}, a.Pipeline)
}

// LoadSearch reads what searches need but a worker does not (WordNet),
// unless read already.
func (a *App) LoadSearch() {
	if l, ok := a.Search.Thesaurus.(*wordnet.Lazy); ok {
		l.Load()
	}
}

// PreloadSearch runs LoadSearch in the background, so that the first search
// does not wait for it.
func (a *App) PreloadSearch() { go a.LoadSearch() }

// Handler returns the HTTP handler: REST API and the Asynq UI at /monitoring.
// The returned func releases the UI's connections and ends the epoch
// subscription.
func (a *App) Handler() (http.Handler, func(), error) {
	redisOpt, err := AsynqRedis(a.Config.Redis)
	if err != nil {
		return nil, nil, err
	}
	a.PreloadSearch()
	// Searches take their namespace's epoch from memory while this
	// subscription is live.
	watchCtx, stopWatch := context.WithCancel(context.Background())
	go a.Search.Registry.WatchEpochs(watchCtx)
	monitoring := asynqmon.New(asynqmon.Options{RootPath: "/monitoring", RedisConnOpt: redisOpt})
	e := api.New(a.APIServices(), api.Options{MaxBodyBytes: a.Config.HTTP.MaxBodyBytes,
		MaxUploadBytes: a.Library.Uploads.MaxRequestBytes(), Monitoring: monitoring,
		BodyTimeout: a.Config.HTTP.BodyTimeout, BodyIdleTimeout: a.Config.HTTP.BodyIdleTimeout,
		Metrics: a.Metrics, MCP: a.MCP, Auth: a.Auth, OAuth: a.OAuth, Log: a.Log, Pin: a.Live.Pin, Telemetry: a.Telemetry,
		WebSearch: websearchapi.New(a.Answer.Web, websearchapi.Info{Name: "ragd", Version: ragd.Version}, a.Log,
			websearchapi.WithMaxBatch(a.Config.HTTP.MaxBatchCalls))})
	return e, func() { stopWatch(); _ = monitoring.Close() }, nil
}

// APIServices are the services the REST API adapts.
func (a *App) APIServices() api.Services {
	return api.Services{Search: a.Search, Answer: a.Answer, Library: a.Library, Health: a.Probe, Archive: a.Archiver,
		Embedders: a.Embedders, Sources: a.Sources}
}

// checkKeyRoots fails when a key's roots do not exist or lie outside the
// ingest roots: a typo should fail at start, not refuse every request.
func checkKeyRoots(keys []config.AuthKey, roots *guard.Roots) error {
	for _, k := range keys {
		for _, r := range k.Roots {
			kr, err := guard.NewRoots([]string{r})
			if err != nil {
				return fmt.Errorf("auth.keys %q roots: %w", k.Name, err)
			}
			if !roots.Contains(kr.Paths()[0]) {
				return fmt.Errorf("auth.keys %q roots: %s is outside ingest.roots (%s)", k.Name, r, roots)
			}
		}
	}
	return nil
}
