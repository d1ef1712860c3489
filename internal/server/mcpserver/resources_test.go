package mcpserver_test

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"ragd"
	"ragd/internal/platform/config"
	"ragd/internal/testkit/stack"
)

// beyondTools is a stack with auth on, a key for every namespace and one
// limited to finance, holding a real document in docs, a small one in
// finance and 205 registry-only documents in bulk (enough for three
// resources/list pages).
type beyondTools struct {
	s           *stack.Stack
	all, fin    *sdk.ClientSession
	docID       string // go_mem.html in docs
	manualID    string // manual.md in docs, longer than a summary's bound
	manual      string
	financeID   string
	financeText string
}

// manualText is a markdown document of known structure, about 40 kB.
func manualText() string {
	var b strings.Builder
	b.WriteString("# Manual\n\nThis manual explains the machine.\n")
	for i := range 12 {
		fmt.Fprintf(&b, "\n## Part %d\n\n", i)
		for j := range 3 {
			s := make([]string, 12)
			for k := range s {
				s[k] = fmt.Sprintf("Part %d paragraph %d sentence %d tells the reader one more thing.", i, j, k)
			}
			b.WriteString(strings.Join(s, " ") + "\n\n")
		}
		fmt.Fprintf(&b, "### Detail %d\n\n- first item of %d\n- second item of %d\n", i, i, i)
	}
	return b.String()
}

func startBeyondTools(t *testing.T) *beyondTools {
	root := docsRoot(t)
	cfg := stack.Config(t, root)
	cfg.Auth.Mode = "static-token"
	cfg.Auth.Keys = []config.AuthKey{{Name: "all", Token: "tok-all-0123456789", Groups: []string{"*"}}, {Name: "finance", Token: "tok-fin-0123456789", Namespaces: []string{"finance"}}}
	b := &beyondTools{s: stack.Start(t, cfg, true), financeText: "Payroll runs on the 25th. Expenses are refunded within ten days."}
	var err error
	if b.all, err = connectWithToken(t, b.s, "tok-all-0123456789"); err != nil {
		t.Fatal(err)
	}
	if b.fin, err = connectWithToken(t, b.s, "tok-fin-0123456789"); err != nil {
		t.Fatal(err)
	}
	res, out := call(t, b.all, "core_ingest", map[string]any{"source_uri": filepath.Join(root, "go_mem.html"), "kb_name": "docs", "wait": true})
	if res.IsError || out["status"] != "completed" {
		t.Fatalf("ingest docs: %v %s", out, text(res))
	}
	b.docID = out["document_id"].(string)
	b.manual = manualText()
	res, out = call(t, b.all, "core_ingest", map[string]any{"content": b.manual, "filename": "manual.md", "kb_name": "docs", "tags": []string{"guide"}, "wait": true})
	if res.IsError || out["status"] != "completed" {
		t.Fatalf("ingest manual: %v %s", out, text(res))
	}
	b.manualID = out["document_id"].(string)
	res, out = call(t, b.all, "core_ingest", map[string]any{"source_uri": b.financeText, "source_type": "text", "kb_name": "finance", "wait": true})
	if res.IsError || out["status"] != "completed" {
		t.Fatalf("ingest finance: %v %s", out, text(res))
	}
	b.financeID = out["document_id"].(string)
	for i := range 205 {
		d := ragd.Document{ID: fmt.Sprintf("%032x", i), Namespace: "bulk", Source: fmt.Sprintf("file:///bulk/%03d.txt", i),
			SourceType: ragd.SourceText, ContentHash: fmt.Sprint("h", i), Title: fmt.Sprint("Bulk ", i), UpdatedAt: time.Now()}
		if err := b.s.Library.Registry.Put(t.Context(), d); err != nil {
			t.Fatal(err)
		}
	}
	return b
}

// listPages lists every resource page by page, following nextCursor.
func listPages(t *testing.T, cs *sdk.ClientSession) [][]*sdk.Resource {
	t.Helper()
	var pages [][]*sdk.Resource
	cursor := ""
	for range 20 {
		res, err := cs.ListResources(t.Context(), &sdk.ListResourcesParams{Cursor: cursor})
		if err != nil {
			t.Fatal(err)
		}
		pages = append(pages, res.Resources)
		if cursor = res.NextCursor; cursor == "" {
			return pages
		}
	}
	t.Fatal("resources/list does not end")
	return nil
}

func readText(t *testing.T, cs *sdk.ClientSession, uri string) (*sdk.ResourceContents, error) {
	t.Helper()
	res, err := cs.ReadResource(t.Context(), &sdk.ReadResourceParams{URI: uri})
	if err != nil {
		return nil, err
	}
	if len(res.Contents) != 1 {
		t.Fatalf("%s: %d contents", uri, len(res.Contents))
	}
	return res.Contents[0], nil
}

// notFound reports whether err is the SDK's resource-not-found error.
func notFound(err error) bool {
	var re *jsonrpc.Error
	return errors.As(err, &re) && re.Code == sdk.CodeResourceNotFound && re.Message == "Resource not found"
}

func TestResourcesPromptsCompletions(t *testing.T) {
	t.Parallel()
	b := startBeyondTools(t)
	t.Run("templates", func(t *testing.T) { testTemplates(t, b) })
	t.Run("list", func(t *testing.T) { testListResources(t, b) })
	t.Run("read document", func(t *testing.T) { testReadDocument(t, b) })
	t.Run("read chunk", func(t *testing.T) { testReadChunk(t, b) })
	t.Run("not found", func(t *testing.T) { testResourcesNotFound(t, b) })
	t.Run("prompts", func(t *testing.T) { testPrompts(t, b) })
	t.Run("completions", func(t *testing.T) { testCompletions(t, b) })
}

func testTemplates(t *testing.T, b *beyondTools) {
	caps := b.all.InitializeResult().Capabilities
	if caps.Resources == nil || caps.Prompts == nil || caps.Completions == nil {
		t.Fatalf("capabilities: %+v", caps)
	}
	res, err := b.all.ListResourceTemplates(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, rt := range res.ResourceTemplates {
		got[rt.URITemplate] = rt.MIMEType
	}
	if len(got) != 2 || got["ragd://{kb_name}/documents/{document_id}"] != "text/markdown" || got["ragd://{kb_name}/chunks/{chunk_id}"] != "text/markdown" {
		t.Fatalf("templates: %v", got)
	}
}

// resources/list pages through every document of every namespace the key
// may read, 100 a page, each once; a limited key sees its namespace only.
func testListResources(t *testing.T, b *beyondTools) {
	pages := listPages(t, b.all)
	if len(pages) != 3 || len(pages[0]) != 100 || len(pages[1]) != 100 || len(pages[2]) != 8 {
		t.Fatalf("pages of %v documents, want 100, 100, 8", sizes(pages))
	}
	seen := map[string]*sdk.Resource{}
	for _, p := range pages {
		for _, r := range p {
			if seen[r.URI] != nil {
				t.Fatalf("%s listed twice", r.URI)
			}
			seen[r.URI] = r
		}
	}
	doc := seen["ragd://docs/documents/"+b.docID]
	if doc == nil || doc.MIMEType != "text/markdown" || doc.Name != b.docID || doc.Title == "" || !strings.Contains(doc.Description, "go_mem.html") ||
		doc.Meta["kb_name"] != "docs" || doc.Meta["source_type"] != "html" || doc.Annotations == nil || doc.Annotations.LastModified == "" {
		t.Fatalf("docs document listed as %+v", doc)
	}
	if seen["ragd://finance/documents/"+b.financeID] == nil || seen["ragd://bulk/documents/"+fmt.Sprintf("%032x", 204)] == nil {
		t.Fatal("a namespace's documents are missing from the list")
	}
	fin := listPages(t, b.fin)
	if len(fin) != 1 || len(fin[0]) != 1 || fin[0][0].URI != "ragd://finance/documents/"+b.financeID {
		t.Fatalf("finance key lists %v", fin)
	}
	if _, err := b.all.ListResources(t.Context(), &sdk.ListResourcesParams{Cursor: "not-a-cursor"}); err == nil ||
		!strings.Contains(err.Error(), "invalid cursor") {
		t.Fatalf("a bad cursor: %v", err)
	}
}

func sizes(pages [][]*sdk.Resource) []int {
	var n []int
	for _, p := range pages {
		n = append(n, len(p))
	}
	return n
}

// A document reads as markdown: front matter with its metadata, its
// headings, every chunk's text in order and the overlap of consecutive
// chunks once.
func testReadDocument(t *testing.T, b *beyondTools) {
	c, err := readText(t, b.all, "ragd://docs/documents/"+b.docID)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := b.s.Library.Registry.Get(t.Context(), "docs", b.docID)
	if err != nil {
		t.Fatal(err)
	}
	if c.MIMEType != "text/markdown" || c.Meta["truncated"] != false || c.Meta["title"] != doc.Title ||
		!strings.HasPrefix(c.Text, "---\ntitle: ") || !strings.Contains(c.Text, `source_type: "html"`) ||
		!strings.Contains(c.Text, "document_id: \""+b.docID+"\"") || !strings.Contains(c.Text, "\n---\n\n# "+doc.Title+"\n") {
		t.Fatalf("document resource: meta %v, text starts %q", c.Meta, c.Text[:min(len(c.Text), 400)])
	}
	chunks, err := b.s.Chunks.DocumentChunks(t.Context(), "docs", b.docID, doc.ContentHash, 0, 1000)
	if err != nil || len(chunks) != doc.Chunks || len(chunks) < 5 {
		t.Fatalf("%d chunks of %d: %v", len(chunks), doc.Chunks, err)
	}
	start, end, repeated := -1, 0, 0
	for i, ch := range chunks {
		j := strings.Index(c.Text[start+1:], ch.Text)
		if j < 0 {
			t.Fatalf("chunk %d is not in the text after chunk %d:\n%q", i, i-1, ch.Text)
		}
		j += start + 1
		if j < end {
			repeated++ // starts inside the chunk before: its overlap, written once
		}
		start, end = j, j+len(ch.Text)
	}
	if repeated == 0 {
		t.Error("no chunk repeats the end of the one before: the test does not exercise the overlap")
	}
	if strings.Count(c.Text, "\n## ") == 0 {
		t.Errorf("no second-level heading in the text")
	}

	// A markdown document comes back as written, after its front matter.
	m, err := readText(t, b.all, "ragd://docs/documents/"+b.manualID)
	if err != nil {
		t.Fatal(err)
	}
	front, body, ok := strings.Cut(strings.TrimPrefix(m.Text, "---\n"), "\n---\n\n")
	if !ok || !strings.Contains(front, `tags: ["guide"]`) || !strings.Contains(front, `source: "upload://docs/manual.md"`) {
		t.Fatalf("manual front matter: %q", front)
	}
	if body != b.manual {
		t.Errorf("manual read back differs from what was indexed:\n got %q\nwant %q", body[:min(len(body), 2000)], b.manual[:2000])
	}
}

// A chunk reads as its text under its heading path, with its document; an
// agent opens core_retrieve_text's node_id so.
func testReadChunk(t *testing.T, b *beyondTools) {
	res, out := call(t, b.all, "core_retrieve_text", map[string]any{"query": "happens before synchronized", "kb_name": "docs", "top_k": 1})
	results, _ := out["results"].([]any)
	if res.IsError || len(results) != 1 {
		t.Fatalf("retrieve: %v", out)
	}
	node := results[0].(map[string]any)
	meta := node["metadata"].(map[string]any)
	c, err := readText(t, b.all, "ragd://docs/chunks/"+node["node_id"].(string))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(c.Text, node["text"].(string)) || !strings.Contains(c.Text, "> "+meta["path"].(string)+"\n") ||
		c.Meta["document_id"] != b.docID || c.Meta["document_uri"] != "ragd://docs/documents/"+b.docID || c.Meta["path"] != meta["path"] {
		t.Fatalf("chunk resource: %v %q", c.Meta, c.Text)
	}
	// In another namespace, the same id is no chunk.
	if _, err := readText(t, b.all, "ragd://finance/chunks/"+node["node_id"].(string)); !notFound(err) {
		t.Fatalf("chunk read in the wrong namespace: %v", err)
	}
	if _, err := readText(t, b.fin, "ragd://docs/chunks/"+node["node_id"].(string)); !notFound(err) {
		t.Fatalf("finance key reading a docs chunk: %v", err)
	}
}

// Whatever may not be read is "Resource not found", the same for a
// forbidden namespace as for a document that never was.
func testResourcesNotFound(t *testing.T, b *beyondTools) {
	for _, c := range []struct {
		cs  *sdk.ClientSession
		uri string
	}{
		{b.fin, "ragd://docs/documents/" + b.docID},        // forbidden namespace
		{b.all, "ragd://docs/documents/0123456789abcdef"},  // no such document
		{b.all, "ragd://finance/documents/" + b.docID},     // wrong namespace
		{b.all, "ragd://docs/chunks/not-a-uuid"},           // no such chunk
		{b.all, "ragd://docs/other/" + b.docID},            // no such kind
		{b.all, "ragd://Bad Name/documents/" + b.docID},    // no such namespace
		{b.all, "file:///etc/passwd"},                      // not ragd's
		{b.all, "ragd://docs/documents/" + b.docID + "/x"}, // no such path
	} {
		if _, err := readText(t, c.cs, c.uri); !notFound(err) {
			t.Errorf("%s: want Resource not found, got %v", c.uri, err)
		}
	}
	if c, err := readText(t, b.fin, "ragd://finance/documents/"+b.financeID); err != nil || !strings.Contains(c.Text, b.financeText) {
		t.Fatalf("finance key reading its own document: %v", err)
	}
}
