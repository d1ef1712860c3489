package cli_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"ragd/internal/cli"
	"ragd/internal/platform/config"
	"ragd/internal/testkit/stack"
	"ragd/internal/testkit/standin"
	"ragd/wire"
)

// ragd embedder shows the live embedder; ragd embedder switch NAME
// follows the switch to its end (as JSON with --json, and as a bar and a
// summary for people); an unknown name fails with the server's message.
func TestEmbedderCommands(t *testing.T) {
	t.Parallel()
	cfg := stack.Config(t)
	alt := standin.NewEmbeddings(t, "alt-embed", 24)
	cfg.Embedders = map[string]config.Embed{"alt": {Provider: "openai", BaseURL: alt.URL, Model: alt.Model}}
	s := stack.Start(t, cfg, true)
	if r := s.Do(t, http.MethodPost, "/tools/rag_index", map[string]any{"text": "Gannets dive for mackerel.", "kb_name": "sea", "wait": true}); r.Status != 200 {
		t.Fatalf("index: %d %s", r.Status, r.Body)
	}

	r := run(t, s.URL, "embedder")
	if r.code != cli.ExitOK || !strings.Contains(r.stdout, "live: default (glove") {
		t.Fatalf("ragd embedder:\n%s", r)
	}
	r = run(t, s.URL, "--json", "embedder", "switch", "alt")
	var out cli.Switched
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil || r.code != cli.ExitOK {
		t.Fatalf("ragd embedder switch alt: %v\n%s", err, r)
	}
	if out.Job == nil || out.Job.Status != "completed" || out.Live.Name != "alt" || out.Live.Dimension != 24 || out.Switch.From != "default" {
		t.Fatalf("switch output: %+v", out)
	}
	r = run(t, s.URL, "--json", "embedder")
	var st wire.EmbedderStatus
	if err := json.Unmarshal([]byte(r.stdout), &st); err != nil || st.Live.Name != "alt" || st.Switch != nil {
		t.Fatalf("ragd --json embedder after the switch: %v\n%s", err, r)
	}
	r = run(t, s.URL, "embedder", "switch", "default")
	if r.code != cli.ExitOK || !strings.Contains(r.stdout, "switched from alt to default (100 dimensions)") {
		t.Fatalf("switch back, for people:\n%s", r)
	}
	r = run(t, s.URL, "embedder", "switch", "nomic")
	if r.code != cli.ExitFailed || !strings.Contains(r.stderr, `no embedder "nomic"`) {
		t.Fatalf("unknown embedder:\n%s", r)
	}
	if r := run(t, s.URL, "embedder", "frobnicate"); r.code != cli.ExitUsage {
		t.Fatalf("bad usage:\n%s", r)
	}
}
