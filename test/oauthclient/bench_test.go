package oauthclient_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"ragd/internal/testkit/signin"
	"ragd/internal/testkit/stack"
	"ragd/internal/testkit/standin"
)

// benchConfig is auth.mode oauth signing in at the GitHub stand-in gh;
// acme/eng's grant is every namespace and group "*", what the static key
// (auth.api_key) has, so both search the same documents through the same
// cache entries.
func benchConfig(gh *standin.GitHub) string {
	return fmt.Sprintf(`auth:
  mode: oauth
  api_key: %s
  oauth:
    provider: github
    client_id: %s
    client_secret: %s
    github_url: %s
    github_api_url: %s
    allowed_orgs: [acme]
    grants:
      - match: acme/eng
        namespaces: ["*"]
        groups: ["*"]
`, opsKey, gh.ClientID, gh.ClientSecret, gh.URL, gh.APIURL())
}

// BenchmarkProcessTokenCheck measures what checking an access token ragd
// issued costs on a cached search: REST rag_search (hybrid, top_k 5, the
// result cache on and warm) against ragd running as its own process in
// auth.mode oauth, with the token the go-sdk client got through the whole
// flow and with a static key (auth.api_key) of the same reach,
// interleaved call by call at concurrency 1 and 16, three rounds of 5 ×
// 40 queries each. Target: the token's p50 ≤ 1.05× the key's.
func BenchmarkProcessTokenCheck(b *testing.B) {
	gh := standin.NewGitHub(b, standin.GitHubUser{ID: 583231, Login: "octocat", Orgs: []string{"acme"}, Teams: []string{"acme/eng"}})
	gh.SignInAs("octocat")
	cfgFile := filepath.Join(b.TempDir(), "config.yaml")
	if err := os.WriteFile(cfgFile, []byte(benchConfig(gh)), 0o600); err != nil {
		b.Fatal(err)
	}
	r := stack.StartProcess(b, map[string]string{"RAGD_CONFIG": cfgFile})
	dir := filepath.Join(r.Root, "godoc")
	stack.CopySpecDocs(b, dir)
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}
	search(b, client, r.URL+"/tools/rag_index_directory", opsKey, map[string]any{"directory_path": dir, "wait": true})
	token := signin.Token(b, r.URL)
	asKey := func(q string) {
		search(b, client, r.URL+"/tools/rag_search", opsKey, map[string]any{"query": q, "top_k": 5})
	}
	asToken := func(q string) {
		search(b, client, r.URL+"/tools/rag_search", token, map[string]any{"query": q, "top_k": 5})
	}
	stack.Interleaved(4, 2, stack.SpecQueries, asKey, asToken) // fill the cache, warm connections and the key list
	b.ResetTimer()
	for range b.N {
		for _, c := range []int{1, 16} {
			var ratios []float64
			var last [2]time.Duration
			for range 3 {
				l := stack.Interleaved(c, 5, stack.SpecQueries, asKey, asToken)
				last = [2]time.Duration{p50(l[0]), p50(l[1])}
				ratios = append(ratios, float64(last[1])/float64(last[0]))
			}
			slices.Sort(ratios)
			fmt.Printf("cached REST search, ragd as a process, issued token vs static key, c%d: p50 ratio %.3f (%.3f–%.3f) (target ≤ 1.05); last round p50 key %s, token %s\n",
				c, ratios[1], ratios[0], ratios[2], last[0].Round(time.Microsecond), last[1].Round(time.Microsecond))
			b.ReportMetric(ratios[1], fmt.Sprintf("p50-ratio-c%d", c))
		}
	}
}

// search posts body as JSON with token and fails unless it answers 200.
func search(b testing.TB, client *http.Client, url, token string, body any) {
	data, _ := json.Marshal(body)
	req, _ := http.NewRequest(http.MethodPost, url, bytes.NewReader(data))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+token)
	res, err := client.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	defer res.Body.Close()
	got, _ := io.ReadAll(res.Body)
	if res.StatusCode != http.StatusOK {
		b.Fatalf("%s: %d %s", url, res.StatusCode, got)
	}
}

// p50 is the median of l.
func p50(l []time.Duration) time.Duration {
	s := slices.Clone(l)
	slices.Sort(s)
	return s[len(s)/2]
}
