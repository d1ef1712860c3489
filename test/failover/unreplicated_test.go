package failover

import (
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"ragd"
	"ragd/internal/testkit/sentinel"
	"ragd/internal/testkit/stack"
	"ragd/internal/testkit/testenv"
)

// unreplicatedPorts are this test's own primary, replica and sentinels.
var unreplicatedPorts = sentinel.Ports{Primary: 23389, Replica: 23390, Sentinels: [3]int{23391, 23392, 23393}}

// With the replica down, an ingest through the sentinels is answered 503
// with Retry-After, saying a retry is safe: the job would be on the
// primary alone, which a failover loses (before, it was acknowledged with
// a warning in the log). Once the replica is back, the client's retry of
// the same request is accepted and indexes the one document: the job the
// refused request wrote neither doubles it nor refuses the retry.
func TestIngestNoReplicaHoldsIs503AndItsRetryIsSafe(t *testing.T) {
	testenv.WeaviateURL(t) // skips under -short before the sentinels start
	set := sentinel.Start(t, unreplicatedPorts)
	cfg := stack.Config(t)
	cfg.Redis.URL = ""
	cfg.Redis.Sentinel.MasterName, cfg.Redis.Sentinel.Addrs = sentinel.MasterName, set.Addrs() // the default waits
	s := stack.Start(t, cfg, true)
	req := map[string]any{"text": "Obsidian forms when lava cools too fast for crystals to grow.", "kb_name": "unreplicated"}

	replica := set.KillReplica(t)
	resp := s.Do(t, http.MethodPost, "/tools/rag_index", req)
	after, _ := strconv.Atoi(resp.Header.Get("Retry-After"))
	if resp.Status != http.StatusServiceUnavailable || after < 1 {
		t.Fatalf("ingest with the replica down: %d (Retry-After %q) %s; want 503 with Retry-After", resp.Status, resp.Header.Get("Retry-After"), resp.Body)
	}
	if detail, _ := resp.JSON["detail"].(string); !strings.Contains(detail, "not confirmed on a Redis replica") || !strings.Contains(detail, "retrying the same request is safe") {
		t.Errorf("503 detail %q", detail)
	}

	set.Restart(t, replica)
	deadline := time.Now().Add(time.Minute)
	for resp.Status == http.StatusServiceUnavailable && time.Now().Before(deadline) {
		time.Sleep(time.Duration(after) * time.Second)
		resp = s.Do(t, http.MethodPost, "/tools/rag_index", req)
	}
	if id, _ := resp.JSON["job_id"].(string); resp.Status == http.StatusAccepted && id != "" {
		if job := s.WaitJob(t, id, time.Minute); job.Status != ragd.JobCompleted {
			t.Fatalf("retried job ended %s: %s", job.Status, job.Error)
		}
	} else if dedup, _ := resp.JSON["dedup_hit"].(bool); resp.Status != http.StatusOK || !dedup {
		t.Fatalf("retry with the replica back: %d %s", resp.Status, resp.Body)
	}
	if n := countDocuments(t, s, "unreplicated"); n != 1 {
		t.Errorf("%d documents after the refused request and its retry, want 1", n)
	}

	// A dedup hit rests on what Redis holds: with no replica to confirm
	// it (the document may be a refused request's job's, on the primary
	// alone), it is refused as a new job is, never answered "already
	// indexed" for a document a failover would lose.
	replica = set.KillReplica(t)
	resp = s.Do(t, http.MethodPost, "/tools/rag_index", req)
	if detail, _ := resp.JSON["detail"].(string); resp.Status != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" ||
		!strings.Contains(detail, "retrying the same request is safe") {
		t.Fatalf("the same text again with the replica down: %d (Retry-After %q) %s; want 503", resp.Status, resp.Header.Get("Retry-After"), resp.Body)
	}
	set.Restart(t, replica)
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(time.Second) {
		resp = s.Do(t, http.MethodPost, "/tools/rag_index", req)
		if dedup, _ := resp.JSON["dedup_hit"].(bool); resp.Status == http.StatusOK && dedup {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the same text with the replica back: %d %s; want a dedup hit", resp.Status, resp.Body)
		}
	}
}
