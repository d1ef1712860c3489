package stack

import (
	"context"
	"sync"
	"testing"

	"ragd"
	"ragd/internal/app"
	"ragd/internal/platform/config"
	"ragd/internal/testkit/memstore"
	"ragd/internal/testkit/testenv"
	"ragd/internal/testkit/wordvec"
)

// ServiceConfig is Config for a test of the services that also runs under
// `go test -short` with no services (testenv.InMemory): then Redis is an
// in-process one, and StartService puts the chunks in memory and embeds
// with a stand-in, so no Weaviate, model file or WordNet is needed.
func ServiceConfig(t testing.TB, roots ...string) config.Config {
	t.Helper()
	if !testenv.InMemory() {
		return Config(t, roots...)
	}
	cfg := config.Default()
	cfg.Redis.URL = testenv.RedisOrMemory(t)
	cfg.Search.WordNetDir = "" // no thesaurus: synonyms and related words stay off
	cfg.Search.SynonymExpansion, cfg.Search.KeywordSynonymExpansion, cfg.Ingest.RelatedWords = false, false, false
	return ownNames(t, cfg, roots)
}

// StartService is Start on the real services, or under testenv.InMemory
// on an in-memory store and a stand-in embedder (cfg from ServiceConfig).
func StartService(t testing.TB, cfg config.Config, withWorker bool) *Stack {
	t.Helper()
	if !testenv.InMemory() {
		return Start(t, cfg, withWorker)
	}
	var mu sync.Mutex
	stores := map[string]ragd.ChunkStore{}
	more := func(collection string) ragd.ChunkStore { // one per collection a switch builds
		mu.Lock()
		defer mu.Unlock()
		if stores[collection] == nil {
			stores[collection] = memstore.New()
		}
		return stores[collection]
	}
	a, err := app.NewWith(context.Background(), cfg, Logger(t), app.Deps{Store: memstore.New(), Embedder: wordvec.New(64), NewStore: more})
	if err != nil {
		t.Fatalf("start ragd in memory: %v", err)
	}
	t.Cleanup(a.Close)
	return serve(t, a, withWorker, nil)
}
