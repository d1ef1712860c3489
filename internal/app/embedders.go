package app

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"ragd"
	"ragd/internal/adapter/embed"
	"ragd/internal/catalog/registry"
	"ragd/internal/jobs/switchjob"
	"ragd/internal/library/embeddersvc"
	"ragd/internal/platform/cache"
	"ragd/internal/platform/config"
	"ragd/internal/platform/keyspace"
	"ragd/internal/platform/resilience"
	"ragd/internal/store"
	"ragd/internal/store/live"
)

// follow reads which embedder and collection are live and builds them:
// until a switch has been made, the default embedder in
// weaviate.collection.
func (a *App) follow(ctx context.Context, deps Deps, guards resilience.Guards, keys keyspace.Keys) (*live.Holder, error) {
	records := live.NewRecords(a.KV, keys, a.Config.Weaviate.Collection)
	return live.NewHolder(ctx, records, a.sideBuilder(deps, guards), live.DefaultPoll, a.Log)
}

// sideBuilder builds each target's embedder and store: the embedder the
// config names for it and a store of its collection (created for that
// embedder when absent, refused when it holds another's vectors), each
// guarded. deps, when given, stand in for the default embedder and
// weaviate.collection.
func (a *App) sideBuilder(deps Deps, guards resilience.Guards) live.Builder {
	return func(ctx context.Context, t live.Target) (*live.Side, error) {
		ec, ok := a.Config.Embedder(t.Name)
		if !ok {
			return nil, fmt.Errorf("embedder %q is recorded as live but is not in the config: add it under embedders "+
				"(the config names %s), or switch back to one that is", t.Name, strings.Join(a.Config.EmbedderNames(), ", "))
		}
		side := &live.Side{Target: t, Provider: ec.Provider, Model: ec.Model, BatchSize: ec.BatchSize}
		raw := deps.Embedder
		if raw == nil || t.Name != live.DefaultName {
			var err error
			if raw, err = newEmbedder(ctx, a.Config, ec); err != nil {
				return nil, fmt.Errorf("embedder %q: %w", t.Name, err)
			}
		}
		if side.Model == "" {
			side.Model = raw.Name()
		}
		g := guards.Embedder
		if t.Name != live.DefaultName {
			g = a.embedderGuard(t.Name, ec)
		}
		side.Embedder, side.Bulk = embed.Guarded(raw, g), embed.Guarded(raw, a.bulkGuard(t.Name, ec))
		st, drop, err := a.connectStore(ctx, deps, t.Collection, raw)
		if err != nil {
			return nil, err
		}
		side.Store, side.Drop = store.Guarded(st, guards.Weaviate), drop
		return side, nil
	}
}

// connectStore connects to collection, made for embedder e.
func (a *App) connectStore(ctx context.Context, deps Deps, collection string, e ragd.Embedder) (ragd.ChunkStore, func(context.Context) error, error) {
	if deps.Store != nil {
		drop := func(context.Context) error { return nil }
		switch {
		case collection == a.Config.Weaviate.Collection:
			return deps.Store, drop, nil
		case deps.NewStore != nil:
			return deps.NewStore(collection), drop, nil
		}
		return nil, nil, fmt.Errorf("collection %s: the given store holds weaviate.collection only", collection)
	}
	cfg := a.Config.Weaviate
	c, err := store.Connect(ctx, store.Config{URL: cfg.URL, GRPCAddr: cfg.GRPCAddr, APIKey: cfg.APIKey, CAFile: cfg.CAFile,
		Collection: collection, BatchSize: cfg.BatchSize, Timeout: timeouts(a.Config).Weaviate,
		ReplicationFactor: cfg.ReplicationFactor, Consistency: cfg.Consistency}, e.Name(), e.Dimension())
	if err != nil {
		return nil, nil, err
	}
	return c, c.Drop, nil
}

// newEmbedder builds the embedder ec configures.
func newEmbedder(ctx context.Context, cfg config.Config, ec config.Embed) (ragd.Embedder, error) {
	switch ec.Provider {
	case "openai":
		key, err := ec.ResolvedAPIKey()
		if err != nil {
			return nil, err
		}
		o, err := embed.NewOpenAI(embed.OpenAIConfig{BaseURL: ec.BaseURL, Model: ec.Model, APIKey: key,
			Dimension: ec.Dimension, BatchSize: ec.BatchSize})
		if err != nil {
			return nil, err
		}
		if ec.Dimension == 0 {
			if err := probeEmbedder(ctx, ec, o); err != nil {
				return nil, err
			}
		}
		return o, nil
	default:
		path, from := ec.ModelPath, "embed.model_path"
		if path == "" {
			path, from = cfg.GloVePath(), "<data.dir>/models/glove-sif-100d.bin, data.dir being "+cfg.Data.Dir
		}
		g, err := embed.LoadGloVe(path)
		if errors.Is(err, fs.ErrNotExist) {
			return nil, missingTable(path, from)
		}
		return g, err
	}
}

// missingTable says which glove table was looked for, where its path came
// from and how relative paths were resolved, since a ragd started from
// another directory (an agent host's) is the likeliest reason.
func missingTable(path, from string) error {
	wd, _ := os.Getwd()
	return fmt.Errorf("the glove embedder's table %s is missing (it is %s; relative paths are taken against the config file's "+
		"directory, or without one the working directory, here %s): run `make deps` (or scripts/deps.sh) for that data dir, "+
		"or set data.dir (RAGD_DATA_DIR) or embed.model_path (RAGD_EMBED_MODEL_PATH), or start ragd with --config", path, from, wd)
}

// embedders is the service behind GET /embedder and POST /embedder/switch,
// and the runner of the switch jobs it enqueues.
func (a *App) embedders(keys keyspace.Keys, reg *registry.Registry, gens *cache.Generations) (*embeddersvc.Embedders, *switchjob.Runner) {
	return &embeddersvc.Embedders{Live: a.Live, Names: a.Config.EmbedderNames(), Queue: a.Queue,
			Collection: a.Config.Weaviate.Collection, Log: a.Log},
		&switchjob.Runner{Live: a.Live, Queue: a.Queue, Registry: reg, Versions: a.Library.Versions,
			Concurrency: 4, Log: a.Log}
}
