package config

import (
	"strings"
	"testing"
	"time"
)

func TestClusterLoads(t *testing.T) {
	cfg, err := loadYAML(t, "redis:\n  url: \"\"\n  cluster:\n    addrs: [127.0.0.1:7001, 'h:7002']\n    password: p\n    read_only_replicas: true\n")
	if err != nil {
		t.Fatal(err)
	}
	c := cfg.Redis.Cluster
	if strings.Join(c.Addrs, ",") != "127.0.0.1:7001,h:7002" || c.Password != "p" || !c.ReadOnlyReplicas || c.FailoverWait != 15*time.Second {
		t.Fatalf("cluster = %+v", c)
	}
}

// Two kinds of server, or a cluster without nodes, are refused by the
// fields' names.
func TestClusterConfigErrors(t *testing.T) {
	cases := []struct{ name, yaml, want string }{
		{"url and cluster", "redis:\n  cluster:\n    addrs: [127.0.0.1:1]\n", "redis.url and redis.cluster are both set"},
		{"sentinel and cluster", "redis:\n  url: \"\"\n  sentinel:\n    master_name: m\n    addrs: [127.0.0.1:1]\n  cluster:\n    addrs: [127.0.0.1:2]\n",
			"redis.sentinel and redis.cluster are both set"},
		{"all three", "redis:\n  sentinel:\n    master_name: m\n    addrs: [127.0.0.1:1]\n  cluster:\n    addrs: [127.0.0.1:2]\n",
			"redis.url and redis.sentinel and redis.cluster are all set"},
		{"no addrs", "redis:\n  url: \"\"\n  cluster:\n    password: p\n", "redis.cluster.addrs is empty"},
		{"bad addr", "redis:\n  url: \"\"\n  cluster:\n    addrs: [nope]\n", `redis.cluster.addrs[0] "nope"`},
		{"negative wait", "redis:\n  url: \"\"\n  cluster:\n    addrs: [127.0.0.1:1]\n    failover_wait: -1s\n", "redis.cluster.failover_wait must not be negative"},
	}
	for _, c := range cases {
		_, err := loadYAML(t, c.yaml)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error = %v, want it to contain %q", c.name, err, c.want)
		}
	}
}
