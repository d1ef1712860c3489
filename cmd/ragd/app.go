package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"time"

	"github.com/redis/go-redis/v9"

	"ragd"
	"ragd/cache"
	"ragd/config"
	"ragd/embed"
	"ragd/ingest"
	"ragd/jobs"
	"ragd/rag"
	"ragd/registry"
	"ragd/store"
	"ragd/worker"
)

// app holds everything a ragd process wires together.
type app struct {
	cfg      config.Config
	log      *slog.Logger
	redis    redis.UniversalClient
	svc      *rag.Service
	pipeline *worker.Pipeline
	queue    *jobs.Queue
}

// loadConfig reads --config, else $RAGD_CONFIG, else ./config.yaml if present.
func loadConfig(fs *flag.FlagSet, args []string) (config.Config, error) {
	path := fs.String("config", os.Getenv("RAGD_CONFIG"), "config file (default ./config.yaml if present)")
	if err := fs.Parse(args); err != nil {
		return config.Config{}, err
	}
	if *path == "" {
		if _, err := os.Stat("config.yaml"); err == nil {
			*path = "config.yaml"
		}
	}
	return config.Load(*path, os.Environ())
}

func newLogger(cfg config.Log) *slog.Logger {
	var level slog.Level
	_ = level.UnmarshalText([]byte(cfg.Level))
	opts := &slog.HandlerOptions{Level: level}
	if cfg.Format == "json" {
		return slog.New(slog.NewJSONHandler(os.Stderr, opts))
	}
	return slog.New(slog.NewTextHandler(os.Stderr, opts))
}

func newApp(ctx context.Context, cfg config.Config) (*app, error) {
	log := newLogger(cfg.Log)
	ropts, err := redis.ParseURL(cfg.Redis.URL)
	if err != nil {
		return nil, fmt.Errorf("redis.url: %w", err)
	}
	rdb := redis.NewClient(ropts)
	pingCtx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if err := rdb.Ping(pingCtx).Err(); err != nil {
		return nil, fmt.Errorf("redis at %s does not answer: %w", ropts.Addr, err)
	}
	embedder, err := newEmbedder(ctx, cfg)
	if err != nil {
		return nil, err
	}
	st, err := store.Open(ctx, store.Config{URL: cfg.Weaviate.URL, GRPCAddr: cfg.Weaviate.GRPCAddr, APIKey: cfg.Weaviate.APIKey,
		Collection: cfg.Weaviate.Collection, BatchSize: cfg.Weaviate.BatchSize, Timeout: cfg.Weaviate.Timeout},
		embedder.Name(), embedder.Dimension())
	if err != nil {
		return nil, err
	}
	roots, err := ingest.NewRoots(cfg.Ingest.Roots)
	if err != nil {
		return nil, fmt.Errorf("ingest.roots: %w", err)
	}
	fetcher := &ingest.Fetcher{AllowPrivate: cfg.Ingest.AllowPrivateURLs, Timeout: cfg.Ingest.URLTimeout,
		MaxBytes: cfg.Ingest.MaxFileBytes, UserAgent: "ragd/" + ragd.Version}
	reg := registry.New(rdb, cfg.Redis.KeyPrefix)
	gens := cache.NewGenerations(rdb, cfg.Redis.KeyPrefix)
	queue := jobs.NewQueue(rdb, jobs.Options{Queue: cfg.Worker.Queue, MaxRetries: cfg.Worker.MaxRetries,
		Timeout: cfg.Worker.TaskTimeout, Retention: cfg.Worker.JobRetention})
	a := &app{cfg: cfg, log: log, redis: rdb, queue: queue}
	a.svc = &rag.Service{Store: st, Embedder: embedder, Registry: reg, Generations: gens, Queue: queue, Redis: rdb,
		Roots: roots, Fetcher: fetcher, Alpha: cfg.Search.Alpha, WaitTimeout: cfg.HTTP.WaitTimeout, Log: log}
	a.pipeline = &worker.Pipeline{Store: st, Embedder: embedder, Registry: reg, Generations: gens, Queue: queue,
		Fetcher: fetcher, Roots: roots, Chunking: ingest.ChunkOptions{Tokens: cfg.Ingest.ChunkTokens, Overlap: cfg.Ingest.ChunkOverlap},
		MaxFileBytes: cfg.Ingest.MaxFileBytes, MaxDirectoryFiles: cfg.Ingest.MaxDirectoryFiles, EmbedBatch: cfg.Embed.BatchSize, Log: log}
	log.Info("ragd ready", "redis", ropts.Addr, "weaviate", cfg.Weaviate.URL, "collection", cfg.Weaviate.Collection,
		"embedder", embedder.Name(), "dimension", embedder.Dimension(), "ingest_roots", roots.String())
	return a, nil
}

func newEmbedder(ctx context.Context, cfg config.Config) (ragd.Embedder, error) {
	switch cfg.Embed.Provider {
	case "openai":
		o, err := embed.NewOpenAI(embed.OpenAIConfig{BaseURL: cfg.Embed.BaseURL, Model: cfg.Embed.Model, APIKey: cfg.Embed.APIKey,
			Dimension: cfg.Embed.Dimension, BatchSize: cfg.Embed.BatchSize, Timeout: cfg.Embed.Timeout})
		if err != nil {
			return nil, err
		}
		if cfg.Embed.Dimension == 0 {
			if err := o.Probe(ctx); err != nil {
				return nil, fmt.Errorf("embedder at %s: %w", cfg.Embed.BaseURL, err)
			}
		}
		return o, nil
	default:
		path := cfg.GloVePath()
		g, err := embed.LoadGloVe(path)
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("the default embedder's table %s is missing: run `make deps` (or scripts/deps.sh), or set embed.model_path", path)
		}
		return g, err
	}
}

func (a *app) close() {
	_ = a.queue.Close()
	_ = a.redis.Close()
}

func (a *app) newWorker() *worker.Server {
	return worker.NewServer(a.redis, worker.ServerOptions{Queue: a.cfg.Worker.Queue,
		Concurrency: a.cfg.Worker.Concurrency, Log: a.log}, a.pipeline)
}
