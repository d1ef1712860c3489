package config

import (
	"errors"
	"fmt"
	"net"
	"strconv"
	"time"
)

// Sentinel finds the Redis primary through Redis Sentinel, so that the
// queue, the registry and the cache follow a failover to the promoted
// replica.
type Sentinel struct {
	// MasterName is the name the sentinels monitor the primary under.
	MasterName string `yaml:"master_name"`
	// Addrs are the sentinels, host:port each.
	Addrs []string `yaml:"addrs"`
	// Password authenticates to the primary and replicas.
	Password string `yaml:"password"`
	// SentinelPassword authenticates to the sentinels.
	SentinelPassword string `yaml:"sentinel_password"`
	// WaitReplicas is how many replicas must hold a job before ragd
	// acknowledges it (Redis WAIT; 0: do not wait): replication is
	// asynchronous, so without it a failover may lose a job just accepted.
	WaitReplicas int `yaml:"wait_replicas"`
	// WaitTimeout bounds that wait; past it the job is refused with 503
	// and Retry-After (a retry of the same request is safe).
	WaitTimeout time.Duration `yaml:"wait_timeout"`
	// RiskJobLoss acknowledges a job no replica confirmed within
	// WaitTimeout, with a warning, instead of refusing it: a failover
	// then may lose a job the client was told was accepted.
	RiskJobLoss bool `yaml:"risk_job_loss"`
	// FailoverWait is how long a Redis command that finds no primary (one
	// died, a replica is not yet promoted) keeps trying before it fails:
	// searches and workers wait out a failover instead of failing. 0 fails
	// at once.
	FailoverWait time.Duration `yaml:"failover_wait"`
}

// Enabled reports whether a sentinel section is given at all.
func (s Sentinel) Enabled() bool { return s.MasterName != "" || len(s.Addrs) > 0 }

// check reports a Redis section that names no server, or two ways to
// one, and then what is wrong with the one it names.
func (r Redis) check() []error {
	if err := r.checkServers(); err != nil {
		return []error{err}
	}
	switch {
	case r.Cluster.Enabled():
		return r.Cluster.check()
	case r.Sentinel.Enabled():
		return r.Sentinel.check()
	}
	return nil
}

// check checks the sentinel section.
func (s Sentinel) check() []error {
	var errs []error
	if s.MasterName == "" {
		errs = append(errs, errors.New("redis.sentinel.master_name is empty: name the primary the sentinels monitor"))
	}
	errs = append(errs, checkAddrs("redis.sentinel", s.Addrs, "list the sentinels as host:port")...)
	return append(errs, checkWaits("redis.sentinel", s.WaitReplicas, s.WaitTimeout, s.FailoverWait)...)
}

// checkAddrs checks section.addrs: present, each host:port.
func checkAddrs(section string, addrs []string, hint string) []error {
	var errs []error
	if len(addrs) == 0 {
		errs = append(errs, fmt.Errorf("%s.addrs is empty: %s", section, hint))
	}
	for i, a := range addrs {
		if err := checkHostPort(a); err != nil {
			errs = append(errs, fmt.Errorf("%s.addrs[%d] %q: %w", section, i, a, err))
		}
	}
	return errs
}

// checkWaits checks section's wait_replicas, wait_timeout and
// failover_wait.
func checkWaits(section string, replicas int, timeout, failover time.Duration) []error {
	var errs []error
	if replicas < 0 {
		errs = append(errs, fmt.Errorf("%s.wait_replicas must not be negative", section))
	}
	if failover < 0 {
		errs = append(errs, fmt.Errorf("%s.failover_wait must not be negative", section))
	}
	if replicas > 0 && timeout <= 0 {
		errs = append(errs, fmt.Errorf("%s.wait_timeout must be positive when wait_replicas is set", section))
	}
	return errs
}

func checkHostPort(addr string) error {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return errors.New("want host:port")
	}
	if n, err := strconv.Atoi(port); host == "" || err != nil || n < 1 || n > 65535 {
		return errors.New("want host:port with a port from 1 to 65535")
	}
	return nil
}
