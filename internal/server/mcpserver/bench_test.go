package mcpserver_test

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"ragd/internal/testkit/stack"
)

// benchArgs are the cached search's arguments.
var benchArgs = map[string]any{"query": "lighthouse keeper ledger", "top_k": 3}

// benchRounds is the fewest rounds per line, and benchCalls the calls to
// each server per round: medians of 5 rounds of 1000 calls stand up to a
// busy machine better than those of 3 of 400.
const (
	benchRounds = 5
	benchCalls  = 1000
)

// BenchmarkMCPCachedRetrieve measures MCP as users see it: ragd run as its
// own process, called by the go-sdk client over streamable HTTP, at the
// client's default protocol (2026-07-28) and at 2025-11-25, against the
// floor: a bare go-sdk stateless streamable-HTTP server, also its own
// process, whose one tool is declared with core_retrieve_text's schemas
// and answers with the result ragd gave, so both sides move the same
// bytes. Calls interleave ragd and the floor call by call at concurrency 1
// and 16, each worker with its own session on each (targets: ≥ 0.85× the
// calls/s, p50 ≤ 1.3×). RAGD_BENCH_REST adds the cached search over REST.
func BenchmarkMCPCachedRetrieve(b *testing.B) {
	ragd := stack.StartProcess(b, nil)
	resp, err := http.Post(ragd.URL+"/tools/rag_index", "application/json", bytes.NewReader([]byte(
		`{"wait":true,"text":"The lighthouse keeper logs every passing ship in the harbour ledger, with its flag and tonnage."}`)))
	if err != nil {
		b.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b.Fatalf("index: %d %s", resp.StatusCode, body)
	}
	client := &http.Client{Transport: &http.Transport{MaxIdleConns: 256, MaxIdleConnsPerHost: 256}}
	ragdMCP := ragd.URL + "/mcp"
	floor := startFloor(b, captureRetrieve(b, connect(b, client, ragdMCP, ""))) // the capture fills the cache
	if os.Getenv("RAGD_BENCH_REST") != "" {
		restDecomposition(b, client, ragd.URL, floor)
	}
	for _, version := range []string{"", "2025-11-25"} { // "": the client's default
		for _, c := range []int{1, 16} {
			r, f := sessions(b, client, ragdMCP, version, c), sessions(b, client, floor, version, c)
			var ratios, p50s []float64
			var last [2]time.Duration
			for round := 0; round < max(b.N, benchRounds); round++ {
				lat := interleave(b, c, benchCalls, retrieveOn(b, f), retrieveOn(b, r))
				ratios = append(ratios, mean(lat[0])/mean(lat[1]))
				last = [2]time.Duration{median(lat[0]), median(lat[1])}
				p50s = append(p50s, float64(last[1])/float64(last[0]))
			}
			slices.Sort(ratios)
			slices.Sort(p50s)
			fmt.Printf("MCP cached core_retrieve_text, go-sdk client at %s, ragd vs bare go-sdk floor (own processes), c=%d, %d rounds: "+
				"calls/s ratio %.2f (%.2f–%.2f, target ≥ 0.85), p50 ratio %.2f (%.2f–%.2f, target ≤ 1.3); last round p50 floor %s, ragd %s\n",
				r[0].InitializeResult().ProtocolVersion, c, len(ratios), ratios[len(ratios)/2], ratios[0], ratios[len(ratios)-1],
				p50s[len(p50s)/2], p50s[0], p50s[len(p50s)-1], last[0].Round(time.Microsecond), last[1].Round(time.Microsecond))
		}
	}
}

// connect opens a go-sdk client session on url at version ("" for the
// client's default).
func connect(b *testing.B, client *http.Client, url, version string) *sdk.ClientSession {
	c := sdk.NewClient(&sdk.Implementation{Name: "ragd-bench", Version: "1"}, nil)
	cs, err := c.Connect(b.Context(), &sdk.StreamableClientTransport{Endpoint: url, HTTPClient: client},
		&sdk.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		b.Fatalf("connect %s (%q): %v", url, version, err)
	}
	b.Cleanup(func() { _ = cs.Close() })
	return cs
}

// sessions are n sessions on url, one per worker.
func sessions(b *testing.B, client *http.Client, url, version string, n int) []*sdk.ClientSession {
	out := make([]*sdk.ClientSession, n)
	for i := range out {
		out[i] = connect(b, client, url, version)
	}
	return out
}

// retrieveOn calls core_retrieve_text on the worker's session.
func retrieveOn(b *testing.B, ss []*sdk.ClientSession) func(worker int) {
	return func(worker int) {
		res, err := ss[worker].CallTool(b.Context(), &sdk.CallToolParams{Name: "core_retrieve_text", Arguments: benchArgs})
		switch {
		case err != nil:
			b.Error(err)
		case res.IsError:
			b.Errorf("tool error: %v", res.Content)
		}
	}
}

// restDecomposition is the cached search over REST beside both MCP calls,
// at concurrency 1.
func restDecomposition(b *testing.B, client *http.Client, ragdURL, floor string) {
	r, f := sessions(b, client, ragdURL+"/mcp", "", 1), sessions(b, client, floor, "", 1)
	rest := func(int) {
		resp, err := client.Post(ragdURL+"/tools/rag_search", "application/json",
			bytes.NewReader([]byte(`{"query":"lighthouse keeper ledger","top_k":3}`)))
		if err != nil {
			b.Error(err)
			return
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	for range 3 {
		lat := interleave(b, 1, 400, retrieveOn(b, f), retrieveOn(b, r), rest)
		fmt.Printf("p50 floor MCP %s, ragd MCP %s, ragd REST %s\n", median(lat[0]), median(lat[1]), median(lat[2]))
	}
}

// interleave runs n rounds of every f with c workers, each worker calling
// them back to back in an order that rotates, so that the machine's noise
// falls on all alike; it returns each f's latencies. A failed call stops
// the run.
func interleave(b *testing.B, c, n int, fs ...func(worker int)) [][]time.Duration {
	out := make([][]time.Duration, len(fs))
	var mu sync.Mutex
	work := make(chan int)
	var wg sync.WaitGroup
	for w := range c {
		wg.Go(func() {
			for k := range work {
				for i := range fs {
					j := (k + i) % len(fs)
					start := time.Now()
					fs[j](w)
					d := time.Since(start)
					mu.Lock()
					out[j] = append(out[j], d)
					mu.Unlock()
				}
			}
		})
	}
	for k := 0; k < n && !b.Failed(); k++ {
		work <- k
	}
	close(work)
	wg.Wait()
	if b.Failed() {
		b.FailNow()
	}
	return out
}

func mean(d []time.Duration) float64 {
	var t time.Duration
	for _, x := range d {
		t += x
	}
	return float64(t) / float64(len(d))
}

func median(d []time.Duration) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[len(s)/2]
}
