package mcpserver_test

import (
	"encoding/json"
	"strings"
	"testing"

	"ragd/internal/testkit/stack"
)

// Over MCP, core_retrieve_text and core_query take other phrasings in
// queries: a passage only the second phrasing matches is found, a passage
// several match comes once, bad phrasings are tool errors naming queries,
// and both tools' descriptions and schemas tell the agent about them.
func TestQueriesOverMCP(t *testing.T) {
	t.Parallel()
	cfg := stack.Config(t)
	cfg.Search.StemExpansion, cfg.Search.SynonymExpansion, cfg.Search.KeywordSynonymExpansion = false, false, false
	s := stack.Start(t, cfg, true)
	cs := connectHTTP(t, s, "", nil)
	for _, text := range []string{"Lighthouses guide ships along the coast at night.",
		"Photosynthesis lets chlorophyll in green leaves turn sunlight into sugar."} {
		if res, out := call(t, cs, "core_ingest", map[string]any{"source_uri": text, "source_type": "text", "kb_name": "kb", "wait": true}); res.IsError || out["status"] != "completed" {
			t.Fatalf("ingest: %s %v", text, out)
		}
	}
	retrieve := func(args map[string]any) []string {
		t.Helper()
		res, out := call(t, cs, "core_retrieve_text", args)
		if res.IsError {
			t.Fatalf("core_retrieve_text %v: %s", args, text(res))
		}
		var got []string
		for _, r := range out["results"].([]any) {
			got = append(got, r.(map[string]any)["text"].(string))
		}
		return got
	}
	base := map[string]any{"query": "lighthouses coast", "kb_name": "kb", "mode": "keyword"}
	if got := retrieve(base); len(got) != 1 || !strings.Contains(got[0], "Lighthouses") {
		t.Fatalf("the query alone: %q", got)
	}
	with := map[string]any{"queries": []string{"chlorophyll sunlight", "LIGHTHOUSES coast", "ships at night"}}
	for k, v := range base {
		with[k] = v
	}
	if got := retrieve(with); len(got) != 2 || strings.Contains(got[0], "Photo") == strings.Contains(got[1], "Photo") {
		t.Fatalf("with other phrasings: %q, want each passage once", got)
	}
	res, out := call(t, cs, "core_query", with)
	if sources, _ := out["sources"].([]any); res.IsError || len(sources) != 2 {
		t.Errorf("core_query with other phrasings: %s, want both passages as sources", text(res))
	}
	for _, tool := range []string{"core_retrieve_text", "core_query"} {
		res, _ := call(t, cs, tool, map[string]any{"query": "q", "queries": []string{"a", ""}})
		if !res.IsError || !strings.Contains(text(res), "queries[1] is empty") {
			t.Errorf("%s with an empty phrasing: isError %v, %q", tool, res.IsError, text(res))
		}
	}
	tools, err := cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tl := range tools.Tools {
		if tl.Name != "core_retrieve_text" && tl.Name != "core_query" {
			continue
		}
		schema, _ := json.Marshal(tl.InputSchema)
		if !strings.Contains(tl.Description, "queries") || !strings.Contains(tl.Description, "documents' own vocabulary") ||
			!strings.Contains(string(schema), `"queries":{`) {
			t.Errorf("%s: description %q, schema %s", tl.Name, tl.Description, schema)
		}
	}
}
