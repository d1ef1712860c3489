package config

import (
	"errors"
	"fmt"
	"strings"
	"time"
)

// Cluster reaches a Redis Cluster: the queue, the registry, the cache and
// every other key of ragd's spread over its shards by hash slot (each
// namespace's keys, and each queue's, share one slot).
type Cluster struct {
	// Addrs are some of the cluster's nodes, host:port each; the rest are
	// found from them.
	Addrs []string `yaml:"addrs"`
	// Password authenticates to every node.
	Password string `yaml:"password"`
	// ReadOnlyReplicas sends read-only commands to replicas.
	ReadOnlyReplicas bool `yaml:"read_only_replicas"`
	// WaitReplicas and WaitTimeout: a new job is acknowledged once this
	// many replicas of its queue's shard hold it (as redis.sentinel's).
	WaitReplicas int           `yaml:"wait_replicas"`
	WaitTimeout  time.Duration `yaml:"wait_timeout"`
	// RiskJobLoss acknowledges a job no replica confirmed in time (as
	// redis.sentinel's).
	RiskJobLoss bool `yaml:"risk_job_loss"`
	// FailoverWait is how long a command that finds a shard without a
	// primary keeps trying (as redis.sentinel.failover_wait).
	FailoverWait time.Duration `yaml:"failover_wait"`
}

// Enabled reports whether a cluster section is given at all.
func (c Cluster) Enabled() bool { return len(c.Addrs) > 0 || c.Password != "" || c.ReadOnlyReplicas }

// servers names the ways to a Redis that r sets.
func (r Redis) servers() []string {
	var set []string
	if r.URL != "" {
		set = append(set, "redis.url")
	}
	if r.Sentinel.Enabled() {
		set = append(set, "redis.sentinel")
	}
	if r.Cluster.Enabled() {
		set = append(set, "redis.cluster")
	}
	return set
}

// checkServers refuses a Redis section that sets no server, or more than
// one kind, by the fields' names.
func (r Redis) checkServers() error {
	const which = `give only one (set redis.url to "", or RAGD_REDIS_URL=, to use redis.sentinel or redis.cluster)`
	switch set := r.servers(); len(set) {
	case 0:
		return errors.New("redis.url is empty and neither redis.sentinel nor redis.cluster is set: give one of them")
	case 1:
		return nil
	case 2:
		return fmt.Errorf("%s are both set: %s", strings.Join(set, " and "), which)
	default:
		return fmt.Errorf("%s are all set: %s", strings.Join(set, " and "), which)
	}
}

// check checks the cluster section.
func (c Cluster) check() []error {
	errs := checkAddrs("redis.cluster", c.Addrs, "list some of the cluster's nodes as host:port")
	return append(errs, checkWaits("redis.cluster", c.WaitReplicas, c.WaitTimeout, c.FailoverWait)...)
}
