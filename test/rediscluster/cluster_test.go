// Package rediscluster_test runs ragd on a real Redis Cluster (three
// primaries, three replicas) through every path that writes to Redis with
// a script, a transaction or a WATCH: a command whose keys span two hash
// slots is refused by the cluster (CROSSSLOT), and the request fails.
package rediscluster_test

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"ragd"
	"ragd/internal/platform/config"
	"ragd/internal/testkit/rediscluster"
	"ragd/internal/testkit/stack"
	"ragd/internal/testkit/standin"
	"ragd/internal/testkit/testenv"
)

const token = "tok-cluster-operator-0123456789"

// TestEveryRedisPathOnACluster: directory ingest and sync, inline text,
// upload, search and answers (cached), the document list, access changes,
// deletes, cancels, job listings, console sessions, export and import,
// clearing a namespace and an embedder switch — each must answer without
// a server error, and leave what it should.
func TestEveryRedisPathOnACluster(t *testing.T) {
	testenv.WeaviateURL(t) // fails loudly before the cluster starts when the services are missing
	c := rediscluster.Start(t, rediscluster.DefaultFirstPort)
	root := t.TempDir()
	for i := range 3 {
		text := fmt.Sprintf("# Note %d\n\nThe harbour lighthouse keeper logs ship number %d at dusk.", i, i)
		if err := os.WriteFile(filepath.Join(root, fmt.Sprintf("n%d.md", i)), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	alt := standin.NewEmbeddings(t, "alt-embed", 48)
	cfg := stack.Config(t, root)
	cfg.Redis.URL = ""
	cfg.Redis.Cluster = config.Cluster{Addrs: c.Addrs()[:3], WaitReplicas: 1, WaitTimeout: time.Second,
		FailoverWait: 15 * time.Second}
	cfg.Auth.Mode, cfg.Auth.APIKey = "static-token", token
	cfg.Embedders = map[string]config.Embed{"alt": {Provider: "openai", BaseURL: alt.URL, Model: alt.Model, Dimension: 48, BatchSize: 32}}
	s := stack.Start(t, cfg, true)
	do := func(method, path string, body any, want ...int) map[string]any {
		t.Helper()
		r := s.DoAs(t, token, method, path, body)
		for _, w := range want {
			if r.Status == w {
				return r.JSON
			}
		}
		t.Fatalf("%s %s: %d %s (want %v)", method, path, r.Status, r.Body, want)
		return nil
	}
	waitJob := func(id string) {
		t.Helper()
		for deadline := time.Now().Add(2 * time.Minute); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
			switch st := do(http.MethodGet, "/jobs/"+id, nil, 200)["status"]; st {
			case string(ragd.JobCompleted), string(ragd.JobCancelled):
				return
			case string(ragd.JobFailed):
				t.Fatalf("job %s failed", id)
			}
		}
		t.Fatalf("job %s did not end", id)
	}

	dir := do(http.MethodPost, "/tools/rag_index_directory", map[string]any{"directory_path": root, "kb_name": "north", "sync": true, "wait": true}, 200)
	waitJob(dir["job_id"].(string))
	do(http.MethodPost, "/tools/rag_index", map[string]any{"text": "The southern pier has a red light.", "kb_name": "south", "access": []string{"ops"}, "wait": true}, 200)
	up, ctype := uploadBody(t)
	if r := s.DoRaw(t, http.MethodPost, "/documents", ctype, token, strings.NewReader(up)); r.Status != 200 && r.Status != 202 {
		t.Fatalf("upload: %d %s", r.Status, r.Body)
	}
	for range 2 { // the second answers from the cache
		if got := do(http.MethodPost, "/tools/rag_search", map[string]any{"query": "harbour lighthouse keeper", "kb_name": "north"}, 200); got["count"].(float64) == 0 {
			t.Fatal("no results on the cluster")
		}
		do(http.MethodPost, "/tools/rag_query", map[string]any{"query": "harbour lighthouse keeper", "kb_name": "north"}, 200)
	}
	docs := do(http.MethodGet, "/documents?kb_name=north", nil, 200)["documents"].([]any)
	first := docs[0].(map[string]any)["document_id"].(string)
	do(http.MethodPatch, "/documents/"+first, map[string]any{"access": []string{"eng"}}, 200)
	do(http.MethodDelete, "/documents/"+first, nil, 200)
	if err := os.WriteFile(filepath.Join(root, "n1.md"), []byte("# Note 1\n\nRevised: the keeper logs two ships."), 0o644); err != nil {
		t.Fatal(err)
	}
	resync := do(http.MethodPost, "/tools/rag_index_directory", map[string]any{"directory_path": root, "kb_name": "north", "sync": true}, 202)
	do(http.MethodPost, "/jobs/"+resync["job_id"].(string)+"/cancel", nil, 200, 409)
	waitJob(resync["job_id"].(string))
	do(http.MethodGet, "/jobs?limit=50", nil, 200)
	do(http.MethodGet, "/tools/rag_stats", nil, 200)
	if r := s.DoAs(t, "", http.MethodPost, "/ui/login", map[string]any{"token": token}); r.Status != 200 {
		t.Fatalf("console login: %d %s", r.Status, r.Body)
	}

	exp := s.DoRaw(t, http.MethodGet, "/kb/north/export", "", token, nil)
	if exp.Status != 200 {
		t.Fatalf("export: %d %.300s", exp.Status, exp.Body)
	}
	imp := s.DoRaw(t, http.MethodPost, "/kb/copy/import", "application/gzip", token, strings.NewReader(string(exp.Body)))
	if imp.Status != 202 {
		t.Fatalf("import: %d %s", imp.Status, imp.Body)
	}
	waitJob(imp.JSON["job_id"].(string))

	sw := do(http.MethodPost, "/embedder/switch", map[string]any{"to": "alt"}, 202)
	waitJob(sw["job_id"].(string))
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(200 * time.Millisecond) {
		st := do(http.MethodGet, "/embedder", nil, 200)
		if live := st["live"].(map[string]any); live["name"] == "alt" && st["switch"] == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the switch did not finish: %v", st)
		}
	}
	if got := do(http.MethodPost, "/tools/rag_search", map[string]any{"query": "harbour lighthouse keeper", "kb_name": "copy"}, 200); got["count"].(float64) == 0 {
		t.Fatal("no results in the imported namespace after the switch")
	}
	do(http.MethodDelete, "/tools/rag_clear?kb_name=south", nil, 200)
	checkSpread(t, c, cfg.Redis.KeyPrefix)
}

// checkSpread: ragd's keys are on the cluster, over more than one shard,
// and none on the single test Redis.
func checkSpread(t *testing.T, c *rediscluster.Cluster, prefix string) {
	t.Helper()
	ctx := context.Background()
	cc := redis.NewClusterClient(&redis.ClusterOptions{Addrs: c.Addrs()})
	defer cc.Close()
	var mu sync.Mutex
	shards := map[string]int{}
	err := cc.ForEachMaster(ctx, func(ctx context.Context, node *redis.Client) error {
		keys, err := node.Keys(ctx, prefix+":*").Result()
		mu.Lock()
		shards[node.Options().Addr] = len(keys)
		mu.Unlock()
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	used := 0
	for _, n := range shards {
		if n > 0 {
			used++
		}
	}
	if used < 2 {
		t.Fatalf("ragd's keys by shard: %v; want them spread over the cluster", shards)
	}
	single := testenv.RedisClient(t, testenv.RedisURL(t))
	if keys, _ := single.Keys(ctx, prefix+":*").Result(); len(keys) > 0 {
		t.Fatalf("%d of ragd's keys on the single test Redis, e.g. %s", len(keys), keys[0])
	}
	t.Logf("ragd's keys by shard primary: %v", shards)
}

func uploadBody(t *testing.T) (string, string) {
	t.Helper()
	const boundary = "ragdclusterboundary"
	body := "--" + boundary + "\r\nContent-Disposition: form-data; name=\"kb_name\"\r\n\r\nnorth\r\n" +
		"--" + boundary + "\r\nContent-Disposition: form-data; name=\"file\"; filename=\"memo.md\"\r\nContent-Type: text/markdown\r\n\r\n" +
		"# Memo\n\nThe lighthouse keeper's memo on fog.\r\n--" + boundary + "--\r\n"
	return body, "multipart/form-data; boundary=" + boundary
}
