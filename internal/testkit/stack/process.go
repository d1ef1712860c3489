package stack

import (
	"context"
	"maps"
	"testing"

	"github.com/redis/go-redis/v9"

	"ragd/internal/platform/config"
	"ragd/internal/testkit/ragdproc"
	"ragd/internal/testkit/testenv"
)

// Process is ragd run as its own process (internal/ragdproc), as users
// run it, with names unique to its test.
type Process struct {
	*ragdproc.Process
	// Config holds its names (collection, key prefix, queue).
	Config config.Config
	// Root is its ingest root and working directory.
	Root string
}

// StartProcess runs the module's ragd (`serve --worker`) with names
// unique to t, as Config gives an in-process one, so that it sees no
// other test's data, and the settings (RAGD_* names) on top. When t ends
// the process is stopped, then its collection dropped and its Redis keys
// deleted.
func StartProcess(t testing.TB, settings map[string]string) *Process {
	t.Helper()
	bin, err := ragdproc.Binary()
	if err != nil {
		t.Fatal(err)
	}
	addr, err := ragdproc.FreeAddr()
	if err != nil {
		t.Fatal(err)
	}
	p := &Process{Config: ownNames(t, config.Default(), nil), Root: t.TempDir()}
	p.Config.Weaviate.URL = testenv.WeaviateURL(t)
	t.Cleanup(func() { dropCollection(t, p.Config); deleteKeys(t, p.Config) })
	env := map[string]string{
		config.EnvName("weaviate", "collection"): p.Config.Weaviate.Collection,
		config.EnvName("redis", "key_prefix"):    p.Config.Redis.KeyPrefix,
		config.EnvName("worker", "queue"):        p.Config.Worker.Queue,
	}
	maps.Copy(env, settings)
	if p.Process, err = ragdproc.Start(bin, addr, p.Root, env); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Stop) // before the cleanup above: cleanups run last first
	return p
}

// deleteKeys deletes the Redis keys of cfg's prefix and of its queue.
func deleteKeys(t testing.TB, cfg config.Config) {
	opts, err := redis.ParseURL(testenv.RedisURL(t))
	if err != nil {
		return
	}
	rdb := redis.NewClient(opts)
	defer rdb.Close()
	ctx := context.Background()
	for _, pattern := range []string{cfg.Redis.KeyPrefix + ":*", "asynq:{" + cfg.Worker.Queue + "}:*"} {
		if keys, _ := rdb.Keys(ctx, pattern).Result(); len(keys) > 0 {
			rdb.Del(ctx, keys...)
		}
	}
}

// DoAs sends method path with body (JSON, or raw []byte) and token as
// the bearer key, as Stack.DoAs does.
func (p *Process) DoAs(t testing.TB, token, method, path string, body any) Response {
	t.Helper()
	return (&Stack{URL: p.URL}).DoAs(t, token, method, path, body)
}
