package failover

import (
	"context"
	"fmt"
	"testing"
	"time"

	"ragd/internal/platform/config"
	"ragd/internal/platform/keyspace"
	"ragd/internal/testkit/rediscluster"
	"ragd/internal/testkit/stack"
	"ragd/internal/testkit/testenv"
)

// clusterPorts are this test's six nodes (test/rediscluster has its own).
const clusterPorts = 21101

// The primary of the shard holding the job queue SIGKILLed under the
// same load as the sentinel test: the cluster promotes its replica,
// ragd's cluster client follows the slots, and the same checks hold — no
// search fails, every file and acknowledged request completes, no chunk
// is lost or doubled.
func TestRedisShardPrimaryKilledUnderIngest(t *testing.T) {
	testenv.WeaviateURL(t) // fails loudly before the cluster starts when the services are missing
	c := rediscluster.Start(t, clusterPorts)
	root := corpus(t)
	cfg := stack.Config(t, root)
	cfg.Redis.URL = ""
	cfg.Redis.Cluster = config.Cluster{Addrs: c.Addrs()[:3], WaitReplicas: 1, WaitTimeout: time.Second, FailoverWait: 15 * time.Second}
	queue := "asynq:{" + cfg.Worker.Queue + "}:pending" // a key of the queue's slot
	killUnderIngest(t, cfg, root, failover{
		what:  "shard primary of the queue and the searched namespace",
		clean: sameShard(t, c, queue, keyspace.New(cfg.Redis.KeyPrefix)),
		kill: func(t testing.TB) int {
			p, err := c.PrimaryOf(context.Background(), queue)
			if err != nil {
				t.Fatal(err)
			}
			c.Kill(t, p)
			return p
		},
		promoted: func(t *testing.T, old int) int { return c.WaitPromoted(t, queue, old, 30*time.Second) },
		restart:  c.Restart,
	})
}

// sameShard names a namespace whose keys live on the shard of key, so
// that the searches read the shard that is killed.
func sameShard(t *testing.T, c *rediscluster.Cluster, key string, keys keyspace.Keys) string {
	ctx := context.Background()
	want, err := c.PrimaryOf(ctx, key)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 100 {
		ns := fmt.Sprintf("clean%d", i)
		if p, err := c.PrimaryOf(ctx, keys.Documents(ns)); err == nil && p == want {
			return ns
		}
	}
	t.Fatalf("no namespace clean0 … clean99 on the shard of %s", key)
	return ""
}
