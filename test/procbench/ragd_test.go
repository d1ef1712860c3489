// Package procbench measures ragd as users run it: its own process
// (internal/ragdproc), called over the network, against the floor doing
// the same work in the same run, interleaved. `make bench` runs it.
package procbench

import (
	"context"
	"net/url"
	"os"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"
	"github.com/weaviate/weaviate-go-client/v5/weaviate"
	"github.com/weaviate/weaviate-go-client/v5/weaviate/grpc"

	"ragd/internal/ragdproc"
	"ragd/internal/testenv"
)

// ragdUnderTest is a ragd process with names of its own.
type ragdUnderTest struct {
	*ragdproc.Process
	Collection, Prefix, Queue string
	Root                      string // its ingest root
}

// startRagd runs ragd with a collection, key prefix and queue of its own
// and settings (RAGD_* names) on top; the process is stopped and its
// collection and keys dropped when b ends.
func startRagd(b *testing.B, settings map[string]string) *ragdUnderTest {
	b.Helper()
	bin, err := ragdproc.Binary()
	if err != nil {
		b.Fatal(err)
	}
	addr, err := ragdproc.FreeAddr()
	if err != nil {
		b.Fatal(err)
	}
	name := testenv.Unique(b, "P")
	r := &ragdUnderTest{Collection: name, Prefix: "test:" + name, Queue: "test-" + name, Root: b.TempDir()}
	env := map[string]string{"RAGD_WEAVIATE_COLLECTION": r.Collection, "RAGD_REDIS_KEY_PREFIX": r.Prefix,
		"RAGD_WORKER_QUEUE": r.Queue}
	for k, v := range settings {
		env[k] = v
	}
	if r.Process, err = ragdproc.Start(bin, addr, r.Root, env); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		r.Stop()
		ctx := context.Background()
		raw := rawClient(b)
		_ = raw.Schema().ClassDeleter().WithClassName(r.Collection).Do(ctx)
		_ = raw.Schema().ClassDeleter().WithClassName(r.Collection + "Image").Do(ctx)
		opts, err := redis.ParseURL(testenv.RedisURL(b))
		if err != nil {
			return
		}
		rdb := redis.NewClient(opts)
		defer rdb.Close()
		for _, pattern := range []string{r.Prefix + ":*", "asynq:{" + r.Queue + "}:*"} {
			keys, _ := rdb.Keys(ctx, pattern).Result()
			if len(keys) > 0 {
				rdb.Del(ctx, keys...)
			}
		}
	})
	return r
}

// rawClient is a Weaviate client of the test services, searching over gRPC
// as ragd does.
func rawClient(b testing.TB) *weaviate.Client {
	u, err := url.Parse(testenv.WeaviateURL(b))
	if err != nil {
		b.Fatal(err)
	}
	c, err := weaviate.NewClient(weaviate.Config{Host: u.Host, Scheme: u.Scheme, GrpcConfig: &grpc.Config{Host: testenv.WeaviateGRPC(b)}})
	if err != nil {
		b.Fatal(err)
	}
	return c
}

// profileRagd, with RAGD_BENCH_PROFILE set, is where ragd writes a CPU
// profile of its run (RAGD_CPU_PROFILE).
func profileRagd(settings map[string]string) {
	if p := os.Getenv("RAGD_BENCH_PROFILE"); p != "" && !strings.Contains(p, "\x00") {
		settings["RAGD_CPU_PROFILE"] = p
	}
}
