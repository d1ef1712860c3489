// Package replication runs ragd against a three-node Weaviate cluster on
// loopback (testenv.StartCluster): replication, failover between nodes,
// and the 503 a namespace gets when no replica of it is alive. The cluster
// has fixed ports, so these tests live in one package and run one at a
// time.
package replication

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/weaviate/weaviate-go-client/v5/weaviate"
	"github.com/weaviate/weaviate-go-client/v5/weaviate/graphql"
	"github.com/weaviate/weaviate-go-client/v5/weaviate/grpc"

	"ragd/internal/platform/config"
	"ragd/internal/testkit/stack"
	"ragd/internal/testkit/testenv"
)

// clusterConfig is a ragd configuration on all three nodes with the given
// replication factor and small timeouts, so a failing call ends quickly.
func clusterConfig(t *testing.T, c *testenv.Cluster, factor int) config.Config {
	cfg := stack.Config(t)
	cfg.Weaviate.URL, cfg.Weaviate.GRPCAddr = c.URLs(), c.GRPCAddrs()
	cfg.Weaviate.ReplicationFactor = factor
	cfg.Weaviate.Consistency = "QUORUM"
	cfg.Weaviate.Timeout = 10 * time.Second
	cfg.Resilience.MaxRetries = 1
	cfg.Cache.Enabled = false
	return cfg
}

func index(t *testing.T, s *stack.Stack, kb, text string) string {
	t.Helper()
	resp := s.Do(t, http.MethodPost, "/tools/rag_index", map[string]any{"text": text, "kb_name": kb, "wait": true})
	if resp.Status != http.StatusOK {
		t.Fatalf("index into %s: %d %s", kb, resp.Status, resp.Body)
	}
	if st, _ := resp.JSON["status"].(string); st != "success" {
		t.Fatalf("index into %s: job %s: %s", kb, st, resp.Body)
	}
	id, _ := resp.JSON["document_id"].(string)
	return id
}

func search(t *testing.T, s *stack.Stack, kb, query string) stack.Response {
	t.Helper()
	return s.Do(t, http.MethodPost, "/tools/rag_search", map[string]any{"query": query, "kb_name": kb, "top_k": 20})
}

func count(resp stack.Response) int {
	n, _ := resp.JSON["count"].(float64)
	return int(n)
}

// nodeObjects counts the objects of the tenant as node w holds them: a
// fetch over w's own gRPC endpoint at consistency ONE, which Weaviate
// serves from the local replica.
func nodeObjects(t *testing.T, w *testenv.Weaviate, class, tenant string) (int, error) {
	t.Helper()
	client, err := weaviate.NewClient(weaviate.Config{Host: w.URL[len("http://"):], Scheme: "http",
		GrpcConfig: &grpc.Config{Host: w.GRPCAddr}})
	if err != nil {
		return 0, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	res, err := client.Experimental().Search().WithCollection(class).WithTenant(tenant).
		WithConsistencyLevel("ONE").WithLimit(10000).WithMetadata(&graphql.Metadata{ID: true}).Do(ctx)
	return len(res), err
}

// tenantNodes maps each tenant of class to the nodes holding it, from
// Weaviate's verbose node status.
func tenantNodes(t *testing.T, w *testenv.Weaviate, class string) map[string][]string {
	t.Helper()
	resp, err := http.Get(w.URL + "/v1/nodes?output=verbose&collection=" + class)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	var status struct {
		Nodes []struct {
			Name   string `json:"name"`
			Shards []struct {
				Class string `json:"class"`
				Name  string `json:"name"`
			} `json:"shards"`
		} `json:"nodes"`
	}
	if err := json.Unmarshal(raw, &status); err != nil {
		t.Fatalf("nodes status: %v: %s", err, raw)
	}
	out := map[string][]string{}
	for _, n := range status.Nodes {
		for _, sh := range n.Shards {
			if sh.Class == class {
				out[sh.Name] = append(out[sh.Name], n.Name)
			}
		}
	}
	return out
}

func nodeIndex(name string) int {
	var i int
	_, _ = fmt.Sscanf(name, "node%d", &i)
	return i - 1
}
