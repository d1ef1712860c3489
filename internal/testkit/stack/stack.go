// Package stack starts a whole ragd — service, worker and HTTP server — in a
// test process, on the real Redis and Weaviate of `make test`. Each stack has
// its own collection, queue and key prefix, so tests run in parallel without
// seeing each other.
package stack

import (
	"context"
	"io"
	"log/slog"
	"net"
	"net/http/httptest"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/weaviate/weaviate-go-client/v5/weaviate"

	"ragd/internal/app"
	"ragd/internal/jobs/worker"
	"ragd/internal/platform/config"
	"ragd/internal/server/api"
	"ragd/internal/testkit/testenv"
)

// Stack is a running ragd for one test.
type Stack struct {
	*app.App
	URL string // base URL of the HTTP server
	// Redis is the app's Redis client (App.KV.Client), for tests that
	// look at keys and commands.
	Redis redis.UniversalClient
	// Worker is the stack's worker, nil without one; stopping it early is
	// safe (the cleanup stops it once).
	Worker *Worker
}

// Worker is a stack's running worker.
type Worker struct {
	srv  *worker.Server
	once sync.Once
}

// Shutdown stops the worker, once; its running jobs go back to the queue.
func (w *Worker) Shutdown() { w.once.Do(w.srv.Shutdown) }

// Config returns a configuration pointing at the test services, with names
// unique to t and ingest confined to roots.
func Config(t testing.TB, roots ...string) config.Config {
	cfg := config.Default()
	cfg.Redis.URL = testenv.RedisURL(t)
	cfg.Weaviate.URL = testenv.WeaviateURL(t)
	cfg.Weaviate.GRPCAddr = testenv.WeaviateGRPC(t)
	cfg.Embed.ModelPath = testenv.GloVePath(t)
	// The test WordNet, so synonym expansion and related words run as
	// configured rather than being switched off by a missing database.
	cfg.Search.WordNetDir = testenv.WordNetDir(t)
	return ownNames(t, cfg, roots)
}

// ownNames gives cfg names unique to t (collection, key prefix, queue) and
// its own ingest roots and data directory.
func ownNames(t testing.TB, cfg config.Config, roots []string) config.Config {
	name := testenv.Unique(t, "T")
	cfg.Weaviate.Collection = name
	cfg.Redis.KeyPrefix = "test:" + name
	cfg.Worker.Queue = "test-" + name
	cfg.Worker.Concurrency = 2
	cfg.HTTP.WaitTimeout = 60 * time.Second
	if len(roots) == 0 {
		roots = []string{t.TempDir()}
	}
	cfg.Ingest.Roots = roots
	// Uploads land in the test's own data directory, not the package's.
	cfg.Data.Dir = t.TempDir()
	return cfg
}

// Start assembles ragd from cfg, starts its worker when withWorker is set and
// serves its handler; everything is stopped and the collection dropped when
// the test ends.
func Start(t testing.TB, cfg config.Config, withWorker bool) *Stack {
	t.Helper()
	return StartWithLogger(t, cfg, withWorker, Logger(t))
}

// StartWithLogger is Start logging to log.
func StartWithLogger(t testing.TB, cfg config.Config, withWorker bool, log *slog.Logger) *Stack {
	t.Helper()
	ctx := context.Background()
	a, err := app.New(ctx, cfg, log)
	if err != nil {
		t.Fatalf("start ragd: %v", err)
	}
	t.Cleanup(func() { dropCollection(t, cfg); a.Close() })
	return serve(t, a, withWorker, nil)
}

// serve starts a's worker when withWorker is set and serves its handler
// on l (nil: a new loopback listener) until the test ends.
func serve(t testing.TB, a *app.App, withWorker bool, l net.Listener) *Stack {
	t.Helper()
	var w *Worker
	if withWorker {
		w = startWorker(t, a)
	}
	// Read WordNet now rather than in Handler's background preload: a
	// benchmark must not time its first rounds against that read.
	a.LoadSearch()
	handler, closeHandler, err := a.Handler()
	if err != nil {
		t.Fatal(err)
	}
	// The server ragd serves with, its timeouts included, on the test's
	// listener.
	srv := httptest.NewUnstartedServer(handler)
	if l != nil {
		srv.Listener.Close()
		srv.Listener = l
	}
	srv.Config = api.NewHTTPServer(srv.Listener.Addr().String(), handler)
	srv.Listener = api.Listener(srv.Listener)
	srv.Start()
	t.Cleanup(func() { srv.Close(); closeHandler() })
	return &Stack{App: a, URL: srv.URL, Worker: w, Redis: a.KV.Client()}
}

// StartWorker starts a worker for a stack started without one, as a
// test's step.
func (s *Stack) StartWorker(t testing.TB) {
	t.Helper()
	s.Worker = startWorker(t, s.App)
}

func startWorker(t testing.TB, a *app.App) *Worker {
	t.Helper()
	w := &Worker{srv: a.NewWorker()}
	if err := w.srv.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.Shutdown)
	return w
}

// Logger logs to stderr with -v and discards otherwise, keeping test output
// readable.
func Logger(t testing.TB) *slog.Logger {
	if testing.Verbose() {
		return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelInfo}))
	}
	return slog.New(slog.NewTextHandler(io.Discard, nil))
}

func dropCollection(t testing.TB, cfg config.Config) {
	// Any live node of a cluster will do; the schema is the cluster's.
	for _, node := range config.Nodes(cfg.Weaviate.URL) {
		u, err := url.Parse(node)
		if err != nil {
			continue
		}
		client, err := weaviate.NewClient(weaviate.Config{Host: u.Host, Scheme: u.Scheme})
		if err != nil {
			continue
		}
		dropped := true
		for _, class := range collectionsOf(client, cfg.Weaviate.Collection) {
			if err := client.Schema().ClassDeleter().WithClassName(class).Do(context.Background()); err != nil {
				dropped = false
			}
		}
		if dropped {
			return
		}
	}
}

// collectionsOf are the collections of a stack's collection stem: itself,
// those an embedder switch made from it (stem_2, stem_3, …) and each one's
// pictures.
func collectionsOf(client *weaviate.Client, stem string) []string {
	out := []string{stem, stem + "Image"}
	schema, err := client.Schema().Getter().Do(context.Background())
	if err != nil {
		return out
	}
	for _, c := range schema.Classes {
		if strings.HasPrefix(c.Class, stem+"_") {
			out = append(out, c.Class)
		}
	}
	return out
}
