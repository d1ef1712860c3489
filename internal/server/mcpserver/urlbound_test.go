package mcpserver_test

import (
	"strings"
	"testing"

	"ragd/internal/testkit/stack"
)

// core_ingest refuses a source_uri URL over ingest.max_url_bytes as
// rag_index does, naming the setting.
func TestCoreIngestRefusesALongURL(t *testing.T) {
	t.Parallel()
	cfg := stack.Config(t)
	cfg.Ingest.MaxURLBytes = 300
	s := stack.Start(t, cfg, false)
	cs := connectHTTP(t, s, "", nil)
	url := "http://93.184.215.14/" + strings.Repeat("a", 300)
	res, _ := call(t, cs, "core_ingest", map[string]any{"source_uri": url})
	if want := "the URL has 321 bytes, more than ingest.max_url_bytes (300)"; !res.IsError || !strings.Contains(text(res), want) {
		t.Fatalf("core_ingest of a 321-byte URL: error %v %q, want %q", res.IsError, text(res), want)
	}
}
