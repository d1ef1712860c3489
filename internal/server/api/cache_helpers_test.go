package api_test

import (
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"ragd/internal/platform/cache"
	"ragd/internal/platform/keyspace"
	ragdsearch "ragd/internal/retrieval/search"
)

func deadCache(t *testing.T) *cache.Results {
	dead := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1", MaxRetries: -1, DialTimeout: 100 * time.Millisecond})
	t.Cleanup(func() { _ = dead.Close() })
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	return cache.NewResults(dead, keyspace.New("x"), time.Minute, cache.NewGenerations(dead, keyspace.New("x")), log, nil)
}

func searchReq(q string) ragdsearch.RetrieveRequest { return ragdsearch.RetrieveRequest{Query: q} }
