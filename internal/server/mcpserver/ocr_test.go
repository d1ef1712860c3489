package mcpserver_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"ragd/internal/testkit/stack"
	"ragd/internal/testkit/testenv"
)

// A scanned PDF ingested over MCP is read by OCR: core_retrieve_text
// finds it by its words, and its metadata say page 1 and ocr.
func TestRetrieveTextMarksOCRChunks(t *testing.T) {
	testenv.RequireOCR(t)
	t.Parallel()
	root := t.TempDir()
	pdf := filepath.Join(root, "scan.pdf")
	scan := testenv.ScannedPDF(t, testenv.ScanPage{Lines: []string{
		"Minutes of the harbour board meeting:", "the committee approved a new lighthouse."}})
	if err := os.WriteFile(pdf, scan, 0o644); err != nil {
		t.Fatal(err)
	}
	s := stack.Start(t, stack.Config(t, root), true)
	cs := connectHTTP(t, s, "", nil)
	res, out := call(t, cs, "core_ingest", map[string]any{"source_uri": pdf, "wait": true})
	result, _ := out["result"].(map[string]any)
	if res.IsError || out["status"] != "completed" || result["pages_ocr"] != float64(1) {
		t.Fatalf("ingest: %v %s", out, text(res))
	}
	res, out = call(t, cs, "core_retrieve_text", map[string]any{"query": "harbour committee lighthouse", "top_k": 3})
	results, _ := out["results"].([]any)
	if res.IsError || len(results) == 0 {
		t.Fatalf("retrieve_text: %v %s", out, text(res))
	}
	top := results[0].(map[string]any)
	meta, _ := top["metadata"].(map[string]any)
	if !strings.Contains(top["text"].(string), "lighthouse") || meta["page"] != float64(1) || meta["ocr"] != true {
		t.Fatalf("top node: %v", top)
	}
}
