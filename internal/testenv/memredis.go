package testenv

import (
	"testing"

	"github.com/alicebob/miniredis/v2"
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
