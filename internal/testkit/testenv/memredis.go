package testenv

import (
	"testing"

	"github.com/alicebob/miniredis/v2"
	"github.com/redis/go-redis/v9"
)

// RedisOrMemory is the test Redis, or under InMemory an in-process one
// (miniredis) that lives as long as the test: the service-level tests of
// `go test -short` run on it. It speaks Redis's protocol and Lua, not every
// corner of Redis; the full suite runs the same tests on the real one.
func RedisOrMemory(t testing.TB) string {
	t.Helper()
	if !InMemory() {
		return RedisURL(t)
	}
	return "redis://" + miniredis.RunT(t).Addr() + "/0"
}

// RedisClient is a client of the Redis at url (RedisURL, RedisOrMemory),
// closed when the test ends.
func RedisClient(t testing.TB, url string) *redis.Client {
	t.Helper()
	opt, err := redis.ParseURL(url)
	if err != nil {
		t.Fatal(err)
	}
	c := redis.NewClient(opt)
	t.Cleanup(func() { _ = c.Close() })
	return c
}
