package mcpserver_test

import (
	"encoding/base64"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"ragd"
	"ragd/internal/testkit/stack"
)

// core_ingest takes a file's bytes (content_base64 + filename) or text
// (content) from agents not on the server's disk: indexed and found by
// core_retrieve_text, the bytes kept by hash as POST /documents keeps them.
func TestIngestContentFromAgents(t *testing.T) {
	t.Parallel()
	cfg := stack.Config(t)
	s := stack.Start(t, cfg, true)
	cs := connectHTTP(t, s, "", nil)

	md := "# Lighthouse log\n\nThe keeper trims the wick of the fresnel lamp at moonrise.\n"
	res, out := call(t, cs, "core_ingest", map[string]any{"content_base64": base64.StdEncoding.EncodeToString([]byte(md)),
		"filename": "log.md", "kb_name": "notes", "wait": true})
	wantID := ragd.DocumentID("notes", "upload://notes/log.md")
	if res.IsError || out["status"] != "completed" || out["document_id"] != wantID || out["dedup_hit"] != false {
		t.Fatalf("content_base64: %v %s", out, text(res))
	}
	res, out = call(t, cs, "core_retrieve_text", map[string]any{"query": "keeper trims the wick", "kb_name": "notes", "top_k": 3})
	if res.IsError || !foundSource(out, "upload://notes/log.md") {
		t.Fatalf("core_retrieve_text after content_base64: %v %s", out, text(res))
	}
	if _, err := os.Stat(filepath.Join(cfg.Data.Dir, "uploads", ragd.ContentHash([]byte(md)))); err != nil {
		t.Fatalf("bytes not kept by hash: %v", err)
	}
	// Unpadded base64 with line breaks reads the same: the same bytes, a dedup hit.
	wrapped := strings.TrimRight(base64.StdEncoding.EncodeToString([]byte(md)), "=")
	wrapped = wrapped[:20] + "\r\n" + wrapped[20:]
	res, out = call(t, cs, "core_ingest", map[string]any{"content_base64": wrapped, "filename": "log.md", "kb_name": "notes"})
	if res.IsError || out["dedup_hit"] != true || out["document_id"] != wantID {
		t.Fatalf("same bytes again: %v %s", out, text(res))
	}

	res, out = call(t, cs, "core_ingest", map[string]any{"content": "Tern colonies nest on the shingle spit in May.", "kb_name": "notes", "wait": true})
	if res.IsError || out["status"] != "completed" {
		t.Fatalf("content: %v %s", out, text(res))
	}
	res, out = call(t, cs, "core_retrieve_text", map[string]any{"query": "tern colonies shingle", "kb_name": "notes", "top_k": 3})
	if res.IsError || !foundText(out, "shingle spit") {
		t.Fatalf("core_retrieve_text after content: %v %s", out, text(res))
	}
	// content with a filename is that file: Markdown, upload://notes/tides.md.
	res, out = call(t, cs, "core_ingest", map[string]any{"content": "# Tides\n\nSpring tides follow the new moon.", "filename": "tides.md", "kb_name": "notes", "wait": true})
	if res.IsError || out["status"] != "completed" || out["document_id"] != ragd.DocumentID("notes", "upload://notes/tides.md") {
		t.Fatalf("content with filename: %v %s", out, text(res))
	}

	// source_uri is no longer required, since content can stand in for it.
	for tool, err := range cs.Tools(t.Context(), nil) {
		if err != nil {
			t.Fatal(err)
		}
		if tool.Name != "core_ingest" {
			continue
		}
		raw, _ := json.Marshal(tool.InputSchema)
		var schema struct {
			Required   []string                  `json:"required"`
			Properties map[string]map[string]any `json:"properties"`
		}
		_ = json.Unmarshal(raw, &schema)
		if slices.Contains(schema.Required, "source_uri") || schema.Properties["content_base64"] == nil || schema.Properties["filename"] == nil ||
			schema.Properties["content"]["description"] == nil {
			t.Fatalf("core_ingest input schema: %s", raw)
		}
	}
}

// Bad content is a tool error that says what is wrong, and the session goes on.
func TestIngestContentErrors(t *testing.T) {
	t.Parallel()
	cfg := stack.Config(t)
	cfg.Ingest.MaxFileBytes = 1024
	s := stack.Start(t, cfg, false)
	cs := connectHTTP(t, s, "", nil)
	b64 := func(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }
	cases := []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"content_base64": "not base64!!", "filename": "a.md"}, "not valid base64"},
		{map[string]any{"content_base64": b64(strings.Repeat("x", 2000)), "filename": "a.md"}, "max_file_bytes"},
		{map[string]any{"content_base64": b64(strings.Repeat("x", 1025)), "filename": "a.md"}, "max_file_bytes"},
		{map[string]any{"content": strings.Repeat("y", 1025), "filename": "a.md"}, "max_file_bytes"},
		{map[string]any{"content_base64": b64("MZ"), "filename": "tool.exe"}, "unsupported file type"},
		{map[string]any{"content_base64": b64("x")}, "needs a filename"},
		{map[string]any{"content_base64": b64("x"), "filename": "../"}, "no usable name"},
		{map[string]any{"content": "x", "source_uri": "y"}, "only one of"},
		{map[string]any{"source_uri": "x", "filename": "a.md"}, "filename goes with content"},
		{map[string]any{"kb_name": "notes"}, "one of source_uri, content or content_base64 is required"},
		{map[string]any{"content_base64": b64("x"), "filename": "a.md", "kb_name": "Bad Name"}, "namespace"},
	}
	for _, c := range cases {
		res, err := cs.CallTool(t.Context(), &sdk.CallToolParams{Name: "core_ingest", Arguments: c.args})
		if err != nil {
			t.Fatalf("%v: protocol error %v (want a tool error)", c.args, err)
		}
		if !res.IsError || !strings.Contains(text(res), c.want) {
			t.Errorf("%v: isError %v, %q lacks %q", c.args, res.IsError, text(res), c.want)
		}
	}
	// Exactly at the limit is fine.
	res, out := call(t, cs, "core_ingest", map[string]any{"content_base64": b64(strings.Repeat("z", 1024)), "filename": "a.txt"})
	if res.IsError || out["status"] != "queued" {
		t.Fatalf("at the limit: %v %s", out, text(res))
	}
	if entries, _ := os.ReadDir(filepath.Join(cfg.Data.Dir, "uploads")); len(entries) != 1 {
		t.Fatalf("uploads dir holds %d entries, want the one accepted file", len(entries))
	}
}

func foundSource(out map[string]any, source string) bool {
	results, _ := out["results"].([]any)
	for _, r := range results {
		meta, _ := r.(map[string]any)["metadata"].(map[string]any)
		if meta["source"] == source {
			return true
		}
	}
	return false
}

func foundText(out map[string]any, s string) bool {
	results, _ := out["results"].([]any)
	for _, r := range results {
		if t, _ := r.(map[string]any)["text"].(string); strings.Contains(t, s) {
			return true
		}
	}
	return false
}
