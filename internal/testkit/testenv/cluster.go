package testenv

import (
	"fmt"
	"net"
	"os"
	"strings"
	"sync"
	"testing"
	"time"
)

// Cluster is a three-node Weaviate cluster on loopback that a test starts,
// kills a node of and restarts, each node with ports and a data
// directory of its own (as scripts/cluster.sh starts them). Its ports are fixed per caller (StartCluster's: HTTP
// 22080–22082, gRPC 22051–22053, gossip 22946–22948, data 22956–22958, raft
// 22300/22302/22304 and raft RPC one above each, used by test/replication;
// test/chaos has its own through StartClusterOn). Test ports stay below
// Linux's ephemeral range (32768–60999), whose ports any outgoing
// connection may hold.
type Cluster struct {
	Nodes []*Weaviate
	ports ClusterPorts
}

// ClusterPorts are node 1's HTTP, gRPC, gossip, data and raft ports; node
// i's are each plus i (raft plus 2i, its raft RPC port one above).
type ClusterPorts struct{ HTTP, GRPC, Gossip, Data, Raft int }

// DefaultClusterPorts are test/replication's.
var DefaultClusterPorts = ClusterPorts{HTTP: 22080, GRPC: 22051, Gossip: 22946, Data: 22956, Raft: 22300}

// node are node i's HTTP, gRPC, gossip, data, raft and raft-RPC ports.
func (p ClusterPorts) node(i int) [6]int {
	return [6]int{p.HTTP + i, p.GRPC + i, p.Gossip + i, p.Data + i, p.Raft + 2*i, p.Raft + 2*i + 1}
}

// StartCluster starts the three nodes (node 1 first, as a node that cannot
// reach its gossip seed exits), waits until all are ready and stops them
// when the test ends. Async replication runs every 2 s with a 1 s
// propagation delay (Weaviate's defaults are 30 s each) to keep the
// catch-up test short.
func StartCluster(t testing.TB) *Cluster {
	t.Helper()
	return StartClusterOn(t, DefaultClusterPorts)
}

// StartClusterOn is StartCluster on ports of the caller's, so that
// packages with ports of their own can run at the same time.
func StartClusterOn(t testing.TB, ports ClusterPorts) *Cluster {
	t.Helper()
	clusterPorts := ports.node
	bin := WeaviateBinary(t)
	for i := 0; i < 3; i++ {
		for _, p := range clusterPorts(i) {
			if c, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", p), 200*time.Millisecond); err == nil {
				c.Close()
				t.Fatalf("port %d of the test Weaviate cluster is in use: is another cluster test running?", p)
			}
		}
	}
	var join []string
	for i := 0; i < 3; i++ {
		join = append(join, fmt.Sprintf("node%d:%d", i+1, clusterPorts(i)[4]))
	}
	c := &Cluster{ports: ports}
	for i := 0; i < 3; i++ {
		p := clusterPorts(i)
		w := &Weaviate{bin: bin, dir: t.TempDir(),
			URL: fmt.Sprintf("http://127.0.0.1:%d", p[0]), GRPCAddr: fmt.Sprintf("127.0.0.1:%d", p[1])}
		w.env = append(os.Environ(),
			"PERSISTENCE_DATA_PATH="+w.dir, "AUTHENTICATION_ANONYMOUS_ACCESS_ENABLED=true",
			"DEFAULT_VECTORIZER_MODULE=none", "ENABLE_MODULES=", "DISABLE_TELEMETRY=true",
			fmt.Sprintf("CLUSTER_HOSTNAME=node%d", i+1), "CLUSTER_IN_LOCALHOST=true",
			"CLUSTER_ADVERTISE_ADDR=127.0.0.1", "CLUSTER_BIND_ADDR=127.0.0.1",
			fmt.Sprintf("GRPC_PORT=%d", p[1]), fmt.Sprintf("CLUSTER_GOSSIP_BIND_PORT=%d", p[2]),
			fmt.Sprintf("CLUSTER_DATA_BIND_PORT=%d", p[3]), fmt.Sprintf("RAFT_PORT=%d", p[4]),
			fmt.Sprintf("RAFT_INTERNAL_RPC_PORT=%d", p[5]), "RAFT_JOIN="+strings.Join(join, ","),
			"RAFT_BOOTSTRAP_EXPECT=3", "USE_INVERTED_SEARCHABLE=false", "LOG_LEVEL=warning",
			"PROMETHEUS_MONITORING_ENABLED=false", "GO_PROFILING_DISABLE=true", "DISABLE_LAZY_LOAD_SHARDS=true",
			"ASYNC_REPLICATION_FREQUENCY=2s", "ASYNC_REPLICATION_PROPAGATION_DELAY=1s")
		if i > 0 {
			w.env = append(w.env, fmt.Sprintf("CLUSTER_JOIN=127.0.0.1:%d", clusterPorts(0)[2]))
		}
		c.Nodes = append(c.Nodes, w)
	}
	t.Cleanup(func() { c.stop(t) })
	c.Nodes[0].launch(t)
	time.Sleep(3 * time.Second)
	for _, w := range c.Nodes[1:] {
		w.launch(t)
	}
	for _, w := range c.Nodes {
		w.waitReady(t, 120*time.Second)
	}
	return c
}

// URLs is the nodes' REST endpoints, comma-separated, for weaviate.url.
func (c *Cluster) URLs() string { return c.join(func(w *Weaviate) string { return w.URL }) }

// GRPCAddrs is the nodes' gRPC addresses, comma-separated, for
// weaviate.grpc_addr.
func (c *Cluster) GRPCAddrs() string { return c.join(func(w *Weaviate) string { return w.GRPCAddr }) }

func (c *Cluster) join(f func(*Weaviate) string) string {
	var out []string
	for _, w := range c.Nodes {
		out = append(out, f(w))
	}
	return strings.Join(out, ",")
}

// Restart starts node i again on its data after a Kill and waits until it
// is ready; a node that runs is left alone.
func (c *Cluster) Restart(t testing.TB, i int) {
	t.Helper()
	select {
	case <-c.Nodes[i].exited:
	default:
		return
	}
	// A restarted node joins the gossip of the others: node 1, the seed,
	// would otherwise start a cluster of its own and never see them again.
	var peers []string
	for j := range c.Nodes {
		if j != i {
			peers = append(peers, fmt.Sprintf("127.0.0.1:%d", c.ports.node(j)[2]))
		}
	}
	w := c.Nodes[i]
	w.env = append(w.env, "CLUSTER_JOIN="+strings.Join(peers, ","))
	w.launch(t)
	w.waitReady(t, 120*time.Second)
}

func (c *Cluster) stop(t testing.TB) {
	var wg sync.WaitGroup
	for _, w := range c.Nodes {
		wg.Add(1)
		go func() { defer wg.Done(); w.Stop(t) }()
	}
	wg.Wait()
}
