package replication

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"ragd/internal/testkit/stack"
	"ragd/internal/testkit/testenv"
)

// One cluster for both cases: it takes ~15 s to form.
func TestCluster(t *testing.T) {
	c := testenv.StartCluster(t)
	t.Run("Factor3SurvivesAKilledNodeAndCatchesUp", func(t *testing.T) { factor3(t, c) })
	t.Run("Factor1NamespaceOnAKilledNodeIs503", func(t *testing.T) { noReplica(t, c) })
}

var facts = []string{
	"Kelp forests grow along cold, nutrient-rich coasts and shelter sea otters.",
	"Glaciers carve U-shaped valleys as they slide slowly downhill.",
	"Coral reefs are built by colonies of tiny animals called polyps.",
	"Mangrove roots filter salt and protect coastlines from storm surges.",
	"Tundra soil stays frozen all year in a layer called permafrost.",
	"Savanna grasses regrow quickly after the dry season's fires.",
}

// With replication factor 3 and QUORUM, killing a node (the first listed,
// the one ragd calls first) leaves searches and writes working; when it
// comes back, async replication brings it the writes it missed: each node
// then holds the same objects. (A delete made while a replica is down is
// left out: in 2 of 5 runs Weaviate 1.35.2 brought the deleted object back
// on every node once the replica returned.)
func factor3(t *testing.T, c *testenv.Cluster) {
	s := stack.Start(t, clusterConfig(t, c, 3), true)
	const kb = "oceans"
	for _, f := range facts[:3] {
		index(t, s, kb, f)
	}
	class := s.Config.Weaviate.Collection
	if owners := tenantNodes(t, c.Nodes[1], class)[kb]; len(owners) != 3 {
		t.Fatalf("tenant %s is on %v, want all three nodes", kb, owners)
	}

	c.Nodes[0].Kill(t)
	t.Cleanup(func() { c.Restart(t, 0) })
	sent, failed := 0, 0
	for i := 0; i < 20; i++ {
		sent++
		if r := search(t, s, kb, "kelp forests coral reefs glaciers"); r.Status != http.StatusOK || count(r) != 3 {
			failed++
			t.Errorf("search %d with node1 down: %d %s", i, r.Status, r.Body)
		}
	}
	for _, f := range facts[3:] {
		index(t, s, kb, f)
	}
	if r := search(t, s, kb, "kelp mangrove tundra savanna coral glaciers"); r.Status != http.StatusOK || count(r) != 6 {
		t.Fatalf("search after writes with node1 down: %d %s", r.Status, r.Body)
	}
	t.Logf("node1 down: %d searches sent, %d failed; 3 documents written", sent, failed)

	c.Restart(t, 0)
	first, _ := nodeObjects(t, c.Nodes[0], class, kb)
	deadline := time.Now().Add(60 * time.Second)
	for {
		counts := make([]int, 3)
		var errs []string
		for i, w := range c.Nodes {
			n, err := nodeObjects(t, w, class, kb)
			counts[i] = n
			if err != nil {
				errs = append(errs, err.Error())
			}
		}
		if len(errs) == 0 && counts[0] == 6 && counts[1] == 6 && counts[2] == 6 {
			t.Logf("node1 held %d objects right after its restart; all nodes hold 6 after catch-up", first)
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("nodes did not converge within 60 s: counts %v (want 6 each), errors %v", counts, errs)
		}
		time.Sleep(time.Second)
	}
}

// With replication factor 1 each namespace lives on one node, and Weaviate
// spreads them over the nodes. Killing a node that holds some: their
// searches and deletes are 503 with Retry-After over REST and an isError
// result over MCP — never 500 — from the first request on, while
// namespaces on live nodes go on answering (the breaker stays closed).
func noReplica(t *testing.T, c *testenv.Cluster) {
	s := stack.Start(t, clusterConfig(t, c, 1), true)
	docs := map[string]string{}
	for i := 0; i < 9; i++ {
		kb := fmt.Sprintf("ns%d", i)
		docs[kb] = index(t, s, kb, facts[i%len(facts)])
	}
	placed := tenantNodes(t, c.Nodes[0], s.Config.Weaviate.Collection)
	byNode := map[string][]string{}
	for kb, owners := range placed {
		if len(owners) != 1 {
			t.Fatalf("tenant %s on %v with factor 1", kb, owners)
		}
		byNode[owners[0]] = append(byNode[owners[0]], kb)
	}
	// Weaviate 1.35 puts a new tenant on the node with the most free disk
	// (in 32 MiB steps, ties at random); on one machine that is often the
	// same node every time, so a namespace on a live node may not exist.
	t.Logf("tenants by node: %v", byNode)
	victim := placed["ns0"][0]
	lost, kept, alive := "ns0", "", ""
	for node, kbs := range byNode {
		if node != victim {
			kept, alive = kbs[0], node
		}
	}
	c.Nodes[nodeIndex(victim)].Kill(t)
	t.Cleanup(func() { c.Restart(t, nodeIndex(victim)) })

	cs := connectMCP(t, s)
	// Before and after the cluster notices the node is gone (gossip takes a
	// few seconds), the answer is the same.
	for end := time.Now().Add(12 * time.Second); time.Now().Before(end); {
		r := search(t, s, lost, "coasts valleys")
		if r.Status != http.StatusServiceUnavailable || r.Header.Get("Retry-After") == "" {
			t.Fatalf("search of %s on killed %s: %d %s (Retry-After %q)", lost, victim, r.Status, r.Body, r.Header.Get("Retry-After"))
		}
		if kept != "" {
			if k := search(t, s, kept, "coasts valleys"); k.Status != http.StatusOK || count(k) != 1 {
				t.Fatalf("search of %s on live %s: %d %s", kept, alive, k.Status, k.Body)
			}
		}
		time.Sleep(500 * time.Millisecond)
	}
	r := search(t, s, lost, "coasts valleys")
	if !strings.Contains(string(r.Body), "weaviate") {
		t.Errorf("503 detail should name weaviate: %s", r.Body)
	}
	res, err := cs.CallTool(t.Context(), &sdk.CallToolParams{Name: "core_retrieve_text", Arguments: map[string]any{"query": "coasts", "kb_name": lost}})
	if err != nil || !res.IsError || !strings.Contains(text(res), "temporarily unavailable") {
		t.Fatalf("MCP core_retrieve_text of %s: %v %+v", lost, err, res)
	}
	if d := s.Do(t, http.MethodDelete, "/documents/"+docs[lost]+"?kb_name="+lost, nil); d.Status != http.StatusServiceUnavailable {
		t.Fatalf("delete in %s: %d %s", lost, d.Status, d.Body)
	}
	// Dozens of these did not open Weaviate's breaker: the other
	// namespaces are not refused for one node's.
	h := s.Do(t, http.MethodGet, "/health", nil)
	if b, _ := h.JSON["breakers"].(map[string]any); b["weaviate"] != "closed" {
		t.Fatalf("weaviate breaker after no-replica answers: %s", h.Body)
	}
}

func connectMCP(t *testing.T, s *stack.Stack) *sdk.ClientSession {
	t.Helper()
	client := sdk.NewClient(&sdk.Implementation{Name: "ragd-test", Version: "1"}, nil)
	cs, err := client.Connect(context.Background(), &sdk.StreamableClientTransport{Endpoint: s.URL + "/mcp"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

func text(res *sdk.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}
