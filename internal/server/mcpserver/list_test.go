package mcpserver_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"ragd/internal/testkit/stack"
)

// core_list_documents pages as GET /documents does, and refuses bad pages as
// tool errors.
func TestListDocumentsPages(t *testing.T) {
	t.Parallel()
	s := stack.Start(t, stack.Config(t), true)
	cs := connectHTTP(t, s, "", nil)
	for i := range 7 {
		res, out := call(t, cs, "core_ingest", map[string]any{"source_type": "text", "kb_name": "shelf", "wait": true,
			"source_uri": fmt.Sprintf("Volume %d of the shelf catalogue: tide tables for harbour number %d.", i, i*7)})
		if res.IsError || out["status"] != "completed" {
			t.Fatalf("core_ingest: %v %s", out, text(res))
		}
	}
	for tool, err := range cs.Tools(t.Context(), nil) {
		if err != nil {
			t.Fatal(err)
		}
		if tool.Name != "core_list_documents" {
			continue
		}
		in, out := fmt.Sprint(tool.InputSchema), fmt.Sprint(tool.OutputSchema)
		if !strings.Contains(in, "limit") || !strings.Contains(in, "offset") || !strings.Contains(out, "total") ||
			!strings.Contains(out, "next_offset") || !tool.Annotations.ReadOnlyHint || !tool.Annotations.IdempotentHint {
			t.Fatalf("core_list_documents definition: %s %s %+v", in, out, tool.Annotations)
		}
	}

	seen := map[string]bool{}
	var sources []string
	args := map[string]any{"kb_name": "shelf", "limit": 3}
	for i, want := range []struct {
		count int
		next  any // absent on the last page
	}{{3, float64(3)}, {3, float64(6)}, {1, nil}} {
		res, out := call(t, cs, "core_list_documents", args)
		docs, _ := out["documents"].([]any)
		next, present := out["next_offset"]
		if res.IsError || out["count"] != float64(want.count) || len(docs) != want.count || out["total"] != float64(7) ||
			next != want.next || present != (want.next != nil) || out["kb_name"] != "shelf" {
			t.Fatalf("page %d: %v %s", i, out, text(res))
		}
		for _, d := range docs {
			id, _ := d.(map[string]any)["document_id"].(string)
			if seen[id] {
				t.Fatalf("%s listed twice", id)
			}
			seen[id] = true
			sources = append(sources, d.(map[string]any)["source"].(string))
		}
		args["offset"] = next
	}
	if len(seen) != 7 || !slices.IsSorted(sources) {
		t.Fatalf("pages listed %d documents, sources %v", len(seen), sources)
	}
	if res, out := call(t, cs, "core_list_documents", map[string]any{"kb_name": "shelf", "offset": 7}); res.IsError ||
		out["count"] != float64(0) || out["total"] != float64(7) || out["next_offset"] != nil {
		t.Fatalf("offset past the end: %v %s", out, text(res))
	}

	for _, args := range []map[string]any{{"limit": 0}, {"limit": 1001}, {"limit": -1}, {"offset": -1}, {"limit": "abc"}} {
		args["kb_name"] = "shelf"
		res, _ := call(t, cs, "core_list_documents", args)
		if !res.IsError || !strings.Contains(text(res), "limit") && !strings.Contains(text(res), "offset") {
			t.Errorf("%v: isError %v, %q", args, res.IsError, text(res))
		}
	}

	if res, out := call(t, cs, "core_stats", nil); res.IsError || fmt.Sprint(out["namespaces"]) != "map[shelf:map[chunks:7 documents:7]]" {
		t.Fatalf("core_stats: %v %s", out, text(res))
	}
}
