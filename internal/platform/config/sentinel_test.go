package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func loadYAML(t *testing.T, yaml string, env ...string) (Config, error) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "c.yaml")
	if err := os.WriteFile(path, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	return Load(path, env)
}

func TestSentinelLoads(t *testing.T) {
	cfg, err := loadYAML(t, "redis:\n  url: \"\"\n  sentinel:\n    master_name: m\n    addrs: [127.0.0.1:1, 'h:2']\n    password: p\n    sentinel_password: sp\n")
	if err != nil {
		t.Fatal(err)
	}
	s := cfg.Redis.Sentinel
	if s.MasterName != "m" || strings.Join(s.Addrs, ",") != "127.0.0.1:1,h:2" || s.Password != "p" || s.SentinelPassword != "sp" {
		t.Fatalf("sentinel = %+v", s)
	}
	if s.WaitReplicas != 1 || s.WaitTimeout != time.Second || s.FailoverWait != 15*time.Second || s.RiskJobLoss {
		t.Fatalf("wait defaults lost: %+v", s)
	}
}

// risk_job_loss is off unless set: a job no replica holds in time is
// refused by default.
func TestRiskJobLossLoads(t *testing.T) {
	cfg, err := loadYAML(t, "redis:\n  url: \"\"\n  sentinel:\n    master_name: m\n    addrs: [127.0.0.1:1]\n    risk_job_loss: true\n")
	if err != nil {
		t.Fatal(err)
	}
	if !cfg.Redis.Sentinel.RiskJobLoss {
		t.Fatalf("redis.sentinel.risk_job_loss: true not read: %+v", cfg.Redis.Sentinel)
	}
	cfg, err = loadYAML(t, "redis:\n  url: \"\"\n  cluster:\n    addrs: [127.0.0.1:1]\n    risk_job_loss: true\n")
	if err != nil {
		t.Fatal(err)
	}
	if !cfg.Redis.Cluster.RiskJobLoss || Default().Redis.Cluster.RiskJobLoss || Default().Redis.Sentinel.RiskJobLoss {
		t.Fatalf("redis.cluster.risk_job_loss: %+v (default on?)", cfg.Redis.Cluster)
	}
}

// RAGD_REDIS_URL= clears the url, so the shipped config.yaml can be used
// with a sentinel section added.
func TestSentinelWithURLClearedFromEnv(t *testing.T) {
	cfg, err := loadYAML(t, "redis:\n  url: redis://x:1/0\n  sentinel:\n    master_name: m\n    addrs: [127.0.0.1:1]\n", "RAGD_REDIS_URL=")
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Redis.URL != "" || !cfg.Redis.Sentinel.Enabled() {
		t.Fatalf("redis = %+v", cfg.Redis)
	}
}

func TestSentinelConfigErrors(t *testing.T) {
	cases := []struct{ name, yaml, want string }{
		{"both", "redis:\n  sentinel:\n    master_name: m\n    addrs: [127.0.0.1:1]\n", "redis.url and redis.sentinel are both set"},
		{"neither", "redis:\n  url: \"\"\n", "redis.url is empty and neither redis.sentinel nor redis.cluster is set"},
		{"no master", "redis:\n  url: \"\"\n  sentinel:\n    addrs: [127.0.0.1:1]\n", "redis.sentinel.master_name is empty"},
		{"no addrs", "redis:\n  url: \"\"\n  sentinel:\n    master_name: m\n", "redis.sentinel.addrs is empty"},
		{"bad addr", "redis:\n  url: \"\"\n  sentinel:\n    master_name: m\n    addrs: [localhost]\n", `redis.sentinel.addrs[0] "localhost": want host:port`},
		{"bad port", "redis:\n  url: \"\"\n  sentinel:\n    master_name: m\n    addrs: ['h:0']\n", "port from 1 to 65535"},
		{"negative wait", "redis:\n  url: \"\"\n  sentinel:\n    master_name: m\n    addrs: ['h:1']\n    wait_replicas: -1\n", "wait_replicas must not be negative"},
		{"negative failover wait", "redis:\n  url: \"\"\n  sentinel:\n    master_name: m\n    addrs: ['h:1']\n    failover_wait: -1s\n", "failover_wait must not be negative"},
		{"no wait timeout", "redis:\n  url: \"\"\n  sentinel:\n    master_name: m\n    addrs: ['h:1']\n    wait_timeout: 0s\n", "wait_timeout must be positive"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := loadYAML(t, c.yaml)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error = %v, want it to contain %q", err, c.want)
			}
		})
	}
}

// The nested section is file-only: a stray RAGD_REDIS_SENTINEL is ignored,
// not an "unsupported setting type" error.
func TestSentinelNotFromEnv(t *testing.T) {
	if _, err := Load("", []string{"RAGD_REDIS_SENTINEL=x"}); err != nil {
		t.Fatal(err)
	}
}
