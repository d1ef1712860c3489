package chaos

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/weaviate/weaviate-go-client/v5/weaviate"
	"github.com/weaviate/weaviate-go-client/v5/weaviate/grpc"

	"ragd/internal/platform/keyspace"
	"ragd/internal/testkit/sentinel"
	"ragd/internal/testkit/testenv"
)

// The chaos test's own ports, clashing with no other test's or script's,
// and below Linux's ephemeral range (32768–60999): a port in it can be
// taken as the source port of any outgoing connection, and a node then
// fails to bind it (it happened here with 54082).
var (
	weaviatePorts = testenv.ClusterPorts{HTTP: 24080, GRPC: 24051, Gossip: 24946, Data: 24949, Raft: 24300}
	redisPorts    = sentinel.Ports{Primary: 24379, Replica: 24380, Sentinels: [3]int{24381, 24382, 24383}}
	apiPorts      = []int{24001, 24002}
)

const (
	collection = "ChaosChunk"
	queue      = "chaos"
	workers    = 3
)

// writeConfig is the one configuration every ragd process reads: the
// three Weaviate nodes at factor 3 and QUORUM, Redis through the
// sentinels, no result cache (a cached answer would hide a failed search).
func writeConfig(t *testing.T, dir, root string, c *testenv.Cluster, set *sentinel.Set) string {
	cfg := fmt.Sprintf(`http:
  addr: 127.0.0.1:%d
redis:
  url: ""
  key_prefix: chaos
  sentinel:
    master_name: %s
    addrs: [%s]
    wait_replicas: 1
    wait_timeout: 1s
weaviate:
  url: %s
  grpc_addr: %s
  collection: %s
  replication_factor: 3
  consistency: QUORUM
data:
  dir: %s
embed:
  model_path: %s
search:
  wordnet_dir: %s
ingest:
  roots: [%s]
worker:
  queue: %s
  concurrency: 2
cache:
  enabled: false
`, apiPorts[0], sentinel.MasterName, strings.Join(set.Addrs(), ", "), c.URLs(), c.GRPCAddrs(), collection,
		filepath.Join(dir, "data"), testenv.GloVePath(t), testenv.WordNetDir(t), root, queue)
	path := filepath.Join(dir, "ragd.yaml")
	if err := os.WriteFile(path, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// corpus is Go's own documentation, distinct files (a namespace keeps one
// copy of identical content): several hundred chunks.
func corpus(t *testing.T) string {
	root := t.TempDir()
	for _, f := range []string{"doc/go_spec.html", "doc/go_mem.html", "doc/asm.html", "doc/godebug.md",
		"src/cmd/compile/README.md", "src/runtime/HACKING.md", "src/cmd/compile/internal/types2/README.md",
		"src/cmd/compile/internal/ssa/README.md", "src/cmd/compile/abi-internal.md", "src/math/big/calibrate.md",
		"src/cmd/vendor/golang.org/x/sys/unix/README.md", "src/internal/trace/tracev2/EXPERIMENTS.md"} {
		testenv.CopyFile(t, testenv.GorootFile(t, f), filepath.Join(root, "docs", strings.ReplaceAll(f, "/", "_")))
	}
	return root
}

// nodeObjects counts the tenant's objects as node w holds them: a fetch
// over w's own gRPC endpoint at consistency ONE, served from its replica.
func nodeObjects(w *testenv.Weaviate, tenant string) (int, error) {
	byDocument, err := nodeDocuments(w, tenant)
	n := 0
	for _, c := range byDocument {
		n += c
	}
	return n, err
}

// converge waits, within a bound, until every node holds want objects of
// each tenant, and returns the last counts seen per tenant and node.
func converge(t *testing.T, c *testenv.Cluster, want map[string]int, within time.Duration) (map[string][]int, bool) {
	deadline := time.Now().Add(within)
	for {
		counts, equal := map[string][]int{}, true
		for tenant, n := range want {
			for _, w := range c.Nodes {
				got, err := nodeObjects(w, tenant)
				if err != nil {
					got = -1
				}
				counts[tenant] = append(counts[tenant], got)
				equal = equal && got == n
			}
		}
		if equal || time.Now().After(deadline) {
			return counts, equal
		}
		time.Sleep(time.Second)
	}
}

// busyWorker waits until one of the worker processes is writing a
// document of the job's namespace and returns its index, or -1 when the
// job ends first. A document's write lock names the process holding it
// ("host:pid:…"), and is held from the parse until the commit, so the
// worker found is mid-task when it is killed.
func busyWorker(t *testing.T, set *sentinel.Set, procs []*proc, cl *client, job, kb string) int {
	t.Helper()
	rdb := redis.NewFailoverClient(&redis.FailoverOptions{MasterName: sentinel.MasterName, SentinelAddrs: set.Addrs()})
	defer rdb.Close()
	ctx := context.Background()
	deadline := time.Now().Add(2 * time.Minute)
	for time.Now().Before(deadline) {
		keys, _ := rdb.Keys(ctx, keyspace.New("chaos").DocumentLock(kb, "*")).Result()
		for _, k := range keys {
			token, err := rdb.Get(ctx, k).Result()
			if err != nil {
				continue
			}
			var host string
			var pid int
			if parts := strings.SplitN(token, ":", 3); len(parts) == 3 {
				host, _ = os.Hostname()
				if parts[0] != host {
					continue
				}
				pid, _ = strconv.Atoi(parts[1])
			}
			for i, p := range procs {
				if p.running() && p.cmd.Process.Pid == pid {
					return i
				}
			}
		}
		if j, ok := cl.job(t, job); ok && j.Status.Terminal() {
			return -1
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatal("no worker process ran a task within 2 minutes")
	return -1
}

// nodeDocuments groups the tenant's objects as node w holds them
// (consistency ONE, its own replica) by document and version
// ("document_id content_hash" → objects): nodeObjects sums them, a
// failure message lists them.
func nodeDocuments(w *testenv.Weaviate, tenant string) (map[string]int, error) {
	client, err := weaviate.NewClient(weaviate.Config{Host: strings.TrimPrefix(w.URL, "http://"), Scheme: "http",
		GrpcConfig: &grpc.Config{Host: w.GRPCAddr}})
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	res, err := client.Experimental().Search().WithCollection(collection).WithTenant(tenant).
		WithConsistencyLevel("ONE").WithLimit(10000).WithProperties("document_id", "content_hash").Do(ctx)
	if err != nil {
		return nil, err
	}
	out := map[string]int{}
	for _, o := range res {
		out[fmt.Sprintf("%v %v", o.Properties["document_id"], o.Properties["content_hash"])]++
	}
	return out, nil
}

// diagnose logs, for a namespace short of chunks, each document's
// registry record against the objects node 0 holds of it, and the worker
// log lines that name the namespace.
func diagnose(t *testing.T, c *testenv.Cluster, cl *client, kb string, procs []*proc) {
	held, err := nodeDocuments(c.Nodes[0], kb)
	if err != nil {
		t.Logf("%s: objects by document: %v", kb, err)
	}
	var page struct {
		Documents []struct {
			ID          string `json:"document_id"`
			Source      string `json:"source"`
			ContentHash string `json:"content_hash"`
			Chunks      int    `json:"chunks"`
		} `json:"documents"`
	}
	cl.must(t, "GET", "/documents?kb_name="+kb+"&limit=1000", nil, 200, &page)
	for _, d := range page.Documents {
		n := held[d.ID+" "+d.ContentHash]
		delete(held, d.ID+" "+d.ContentHash)
		t.Logf("%s: %s (%s) registry %d chunks of %.12s, node0 holds %d", kb, d.ID, filepath.Base(d.Source), d.Chunks, d.ContentHash, n)
	}
	for k, n := range held {
		t.Logf("%s: node0 holds %d objects of %s, which the registry does not list", kb, n, k)
	}
	for _, p := range procs {
		b, _ := os.ReadFile(p.log)
		shown := 0
		for _, line := range strings.Split(string(b), "\n") {
			if shown < 300 && (strings.Contains(line, `"kb_name":"`+kb+`"`) || strings.Contains(line, "kb_name="+kb+" ") ||
				strings.Contains(line, "WARN") || strings.Contains(line, "ERROR")) {
				t.Logf("%s: %s", p.name, line)
				shown++
			}
		}
	}
}
