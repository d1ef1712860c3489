package stack

import (
	"testing"

	"ragd/config"
	"ragd/internal/testenv"
)

// ProcessEnv is the settings (RAGD_* names) that give a ragd run as its
// own process (internal/ragdproc) names unique to t, as Config gives an
// in-process one, so that it sees no other test's data; its collection is
// dropped when t ends (after the process, stopped by a later cleanup).
func ProcessEnv(t testing.TB) map[string]string {
	cfg := ownNames(t, config.Default(), nil)
	cfg.Weaviate.URL = testenv.WeaviateURL(t)
	t.Cleanup(func() { dropCollection(t, cfg) })
	return map[string]string{
		config.EnvName("weaviate", "collection"): cfg.Weaviate.Collection,
		config.EnvName("redis", "key_prefix"):    cfg.Redis.KeyPrefix,
		config.EnvName("worker", "queue"):        cfg.Worker.Queue,
	}
}
