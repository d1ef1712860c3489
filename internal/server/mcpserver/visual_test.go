package mcpserver_test

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"ragd/internal/testkit/stack"
	"ragd/internal/testkit/testenv"
)

// Images extracted from a real PDF at ingest are found by their captions;
// re-indexing and deleting the document removes them with its chunks.
func TestRetrieveVisualFindsCaptionedImages(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	pdf := filepath.Join(root, "gopl-ch1.pdf")
	testenv.CopyFile(t, testenv.ModuleFile(t, "github.com/pdfcpu/pdfcpu@v0.15.0", "pkg/testdata/TheGoProgrammingLanguageCh1.pdf"), pdf)
	s := stack.Start(t, stack.Config(t, root), true)
	cs := connectHTTP(t, s, "", nil)

	res, out := call(t, cs, "core_ingest", map[string]any{"source_uri": pdf, "kb_name": "books", "wait": true})
	if id, _ := out["job_id"].(string); !res.IsError && out["status"] != "completed" && id != "" {
		// wait answers with the job as it stands after the server's wait
		// bound (45 s), which a loaded CI machine can pass: poll on.
		res, out = settled(t, cs, id, 3*time.Minute)
	}
	result, _ := out["result"].(map[string]any)
	if res.IsError || out["status"] != "completed" || result["images_indexed"] == nil || result["images_indexed"].(float64) < 3 {
		t.Fatalf("ingest: %v %s", out, text(res))
	}
	res, out = call(t, cs, "core_retrieve_visual", map[string]any{"query": "Lissajous figures animation", "kb_name": "books", "top_k": 3})
	results, _ := out["results"].([]any)
	if res.IsError || len(results) == 0 {
		t.Fatalf("retrieve_visual: %v %s", out, text(res))
	}
	top := results[0].(map[string]any)
	// Figures 1.1 (page 32) and 1.3 (page 42) are the Lissajous ones.
	if (top["page"] != float64(32) && top["page"] != float64(42)) || !strings.Contains(top["caption"].(string), "Lissajous") ||
		!strings.Contains(top["caption"].(string), "figures") || // the PDF's "ﬁ" ligature folded
		top["image_id"] == "" || top["document_id"] == "" {
		t.Fatalf("top image: %v", top)
	}
	// Another namespace has none.
	_, out = call(t, cs, "core_retrieve_visual", map[string]any{"query": "Lissajous", "kb_name": "other"})
	if out["count"] != float64(0) || out["note"] == "" {
		t.Fatalf("other namespace: %v", out)
	}
	// Deleting the document deletes its images.
	if res, _ = call(t, cs, "core_delete_document", map[string]any{"document_id": top["document_id"]}); res.IsError {
		t.Fatal(text(res))
	}
	_, out = call(t, cs, "core_retrieve_visual", map[string]any{"query": "Lissajous figures animation", "kb_name": "books"})
	if out["count"] != float64(0) {
		t.Fatalf("images survived their document: %v", out)
	}
}
