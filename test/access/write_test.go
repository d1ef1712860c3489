package access_test

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"ragd"
	"ragd/internal/app"
	"ragd/internal/cli"
	"ragd/internal/platform/config"
	"ragd/internal/testkit/stack"
)

// nsOpsToken holds group "*" but is limited to the namespace ns: it sees
// every document there, yet is no operator of what spans every namespace.
const nsOpsToken = "tok-nsops-0123456789"

// writeConfig is authConfig with nsOpsToken's key besides.
func writeConfig(t *testing.T, roots ...string) config.Config {
	cfg := authConfig(t, roots...)
	cfg.Auth.Keys = append(cfg.Auth.Keys, config.AuthKey{Name: "nsops", Token: nsOpsToken, Namespaces: []string{ns}, Groups: []string{"*"}})
	return cfg
}

// Clearing deletes documents hidden from the caller too: a namespace is
// cleared only by a principal that sees every document in it, every
// namespace only by an operator. A refused clear deletes nothing.
func TestClearNeedsEveryDocument(t *testing.T) {
	t.Parallel()
	k := startWith(t, writeConfig(t))
	for _, token := range []string{engToken, finToken, noneToken} {
		if r := call(t, k.s, token, http.MethodDelete, "/tools/rag_clear?kb_name="+ns, nil); r.Status != http.StatusForbidden {
			t.Fatalf("%s clearing %s: %d %s", keyName[token], ns, r.Status, r.Body)
		}
		// eng is limited to no namespace, yet sees eng's documents only.
		if r := call(t, k.s, token, http.MethodDelete, "/tools/rag_clear?all=true&confirm=true", nil); r.Status != http.StatusForbidden {
			t.Fatalf("%s clearing every namespace: %d %s", keyName[token], r.Status, r.Body)
		}
	}
	if r := call(t, k.s, nsOpsToken, http.MethodDelete, "/tools/rag_clear?all=true&confirm=true", nil); r.Status != http.StatusForbidden {
		t.Fatalf("a namespace-limited key in group * clearing every namespace: %d %s", r.Status, r.Body)
	}
	if got := searchNames(t, k, opsToken, ns); !slices.Equal(got, sees[opsToken]) {
		t.Fatalf("after the refused clears the operator finds %v", got)
	}
	if r := call(t, k.s, nsOpsToken, http.MethodDelete, "/tools/rag_clear?kb_name="+ns, nil); r.Status != http.StatusOK {
		t.Fatalf("a key seeing every document of %s clearing it: %d %s", ns, r.Status, r.Body)
	}
	if got := searchNames(t, k, opsToken, ns); len(got) != 0 {
		t.Fatalf("after the clear the operator finds %v", got)
	}
}

// operatorRoutes are every route that spans every namespace and every
// document: an operator's alone (auth.Principal.Operator).
var operatorRoutes = []struct{ method, path, body string }{
	{http.MethodGet, "/monitoring/", ""},
	{http.MethodGet, "/monitoring/api/queues", ""},
	{http.MethodGet, "/metrics", ""},
	{http.MethodPost, "/embedder/switch", `{"to":"nope"}`},
	{http.MethodGet, "/embedder", ""},
	{http.MethodDelete, "/tools/rag_clear?all=true&confirm=true", ""},
}

// Every operator route refuses each principal that is no operator (a key
// with groups but no namespace limit, one in group * limited to a
// namespace, one without groups) with 403, and admits the operator.
func TestOperatorRoutes(t *testing.T) {
	t.Parallel()
	k := startWith(t, writeConfig(t))
	for _, rt := range operatorRoutes {
		for _, token := range []string{engToken, noneToken, nsOpsToken, opsToken} {
			var body []byte
			if rt.body != "" {
				body = []byte(rt.body)
			}
			r := k.s.DoRaw(t, rt.method, rt.path, "application/json", token, bytes.NewReader(body))
			switch {
			case token != opsToken && r.Status != http.StatusForbidden:
				t.Errorf("%s %s as %s: %d %.200s", rt.method, rt.path, tokenName(token), r.Status, r.Body)
			case token == opsToken && (r.Status == http.StatusForbidden || r.Status == http.StatusUnauthorized):
				t.Errorf("%s %s as the operator: %d %.200s", rt.method, rt.path, r.Status, r.Body)
			}
		}
	}
	// The console shows the operator's links to the operator alone.
	for token, want := range map[string]bool{engToken: false, nsOpsToken: false, opsToken: true} {
		r := call(t, k.s, token, http.MethodPost, "/ui/login", map[string]any{"token": token})
		if r.Status != http.StatusOK || r.JSON["operator"] != want {
			t.Errorf("login as %s: %d %s, want operator %v", tokenName(token), r.Status, r.Body, want)
		}
	}
}

func tokenName(token string) string {
	if token == nsOpsToken {
		return "nsops"
	}
	if token == teamEngToken {
		return "teameng"
	}
	return keyName[token]
}

// A job shows what its asker indexed (source, document, content hash):
// a principal that does not see every document its asker saw gets none
// of it — not by id, not in a listing, not in the counts — and may not
// cancel it; over REST, MCP and the CLI.
func TestJobsFollowAccess(t *testing.T) {
	t.Parallel()
	k := start(t)
	r := call(t, k.s, finToken, http.MethodPost, "/tools/rag_index",
		map[string]any{"text": "The fin ledger: harbour dues for the quarter.", "kb_name": ns, "access": []string{"fin"}})
	if r.Status != http.StatusAccepted {
		t.Fatalf("fin's index: %d %s", r.Status, r.Body)
	}
	finJob, _ := r.JSON["job_id"].(string)
	waitJob(t, k, finJob)
	for _, token := range []string{engToken, noneToken} {
		if r := call(t, k.s, token, http.MethodGet, "/jobs/"+finJob, nil); r.Status != http.StatusNotFound {
			t.Fatalf("GET fin's job as %s: %d %.300s", keyName[token], r.Status, r.Body)
		}
		if r := call(t, k.s, token, http.MethodPost, "/jobs/"+finJob+"/cancel", nil); r.Status != http.StatusNotFound {
			t.Fatalf("cancel of fin's job as %s: %d %.300s", keyName[token], r.Status, r.Body)
		}
		list := call(t, k.s, token, http.MethodGet, "/jobs?kb_name="+ns, nil)
		if list.Status != http.StatusOK || strings.Contains(string(list.Body), finJob) {
			t.Fatalf("jobs of %s as %s: %d %.500s", ns, keyName[token], list.Status, list.Body)
		}
		cs := connect(t, k, token)
		if out := tool(t, cs, "core_list_jobs", map[string]any{"kb_name": ns}); strings.Contains(mustJSON(out), finJob) {
			t.Fatalf("core_list_jobs as %s lists fin's job: %v", keyName[token], out)
		}
		res, err := cs.CallTool(t.Context(), &sdk.CallToolParams{Name: "core_job_status", Arguments: map[string]any{"job_id": finJob}})
		if err == nil && !res.IsError {
			t.Fatalf("core_job_status of fin's job as %s: %+v", keyName[token], res.StructuredContent)
		}
		var out bytes.Buffer
		env := cli.Env{Stdout: &out, Stderr: &out, Getenv: func(string) string { return "" }}
		cli.Run(context.Background(), []string{"jobs", "--server", k.s.URL, "--token", token, "--json"}, env)
		if strings.Contains(out.String(), finJob) {
			t.Fatalf("ragd jobs as %s lists fin's job: %s", keyName[token], out.String())
		}
	}
	// The counts: the operator's and fin's include the job, eng's not.
	for token, want := range map[string]bool{opsToken: true, finToken: true, engToken: false} {
		list := call(t, k.s, token, http.MethodGet, "/jobs?kb_name="+ns, nil)
		if got := strings.Contains(string(list.Body), finJob); got != want {
			t.Fatalf("jobs as %s list fin's job: %v, want %v", keyName[token], got, want)
		}
	}
	r = call(t, k.s, engToken, http.MethodPost, "/tools/rag_index",
		map[string]any{"text": "The eng log: harbour crane serviced.", "kb_name": ns, "access": []string{"eng"}})
	engJob, _ := r.JSON["job_id"].(string)
	waitJob(t, k, engJob)
	if r := call(t, k.s, engToken, http.MethodGet, "/jobs/"+engJob, nil); r.Status != http.StatusOK {
		t.Fatalf("eng reading its own job: %d %s", r.Status, r.Body)
	}
	if r := call(t, k.s, finToken, http.MethodGet, "/jobs/"+engJob, nil); r.Status != http.StatusNotFound {
		t.Fatalf("fin reading eng's job: %d %s", r.Status, r.Body)
	}
}

// A key's directory sync is about the documents it sees: one hidden from
// it is neither named by a dry run, nor counted, nor pruned.
func TestSyncLeavesHiddenDocuments(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	files := map[string]string{"open.md": "# Open\n\nHarbour lighthouse report, open part.", "fin.md": "# Fin\n\nHarbour lighthouse report, fin part."}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(root, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	k := start(t, root)
	finDoc := ragd.DocumentID("dir", "file://"+filepath.Join(root, "fin.md"))
	r := call(t, k.s, finToken, http.MethodPost, "/tools/rag_index",
		map[string]any{"file_path": filepath.Join(root, "fin.md"), "kb_name": "dir", "access": []string{"fin"}, "wait": true})
	if r.Status != http.StatusOK {
		t.Fatalf("fin's index: %d %s", r.Status, r.Body)
	}
	if err := os.Remove(filepath.Join(root, "fin.md")); err != nil {
		t.Fatal(err)
	}
	body := map[string]any{"directory_path": root, "kb_name": "dir", "sync": true, "dry_run": true}
	dry := call(t, k.s, engToken, http.MethodPost, "/tools/rag_index_directory", body)
	if dry.Status != http.StatusOK || strings.Contains(string(dry.Body), finDoc) || strings.Contains(string(dry.Body), "fin.md") {
		t.Fatalf("eng's dry run: %d %s", dry.Status, dry.Body)
	}
	cs := connect(t, k, engToken)
	if out := tool(t, cs, "core_ingest_directory", map[string]any{"directory_path": root, "kb_name": "dir", "sync": true, "dry_run": true}); strings.Contains(mustJSON(out), "fin.md") {
		t.Fatalf("eng's dry run over MCP names fin's document: %v", out)
	}
	body["dry_run"], body["wait"] = false, true
	if r := call(t, k.s, engToken, http.MethodPost, "/tools/rag_index_directory", body); r.Status != http.StatusOK {
		t.Fatalf("eng's sync: %d %s", r.Status, r.Body)
	} else if id, _ := r.JSON["job_id"].(string); id != "" {
		waitJob(t, k, id)
	}
	if r := call(t, k.s, opsToken, http.MethodGet, "/documents/"+finDoc+"?kb_name=dir", nil); r.Status != http.StatusOK {
		t.Fatalf("fin's document after eng's sync: %d %s", r.Status, r.Body)
	}
	// The operator's sync prunes it: its file is gone.
	body["dry_run"], body["wait"] = true, false
	dry = call(t, k.s, opsToken, http.MethodPost, "/tools/rag_index_directory", body)
	if !strings.Contains(string(dry.Body), finDoc) {
		t.Fatalf("the operator's dry run does not name the document whose file is gone: %s", dry.Body)
	}
}

// Re-indexing with access changes a document only where PATCH would, and
// no key creates a document hidden from itself.
func TestIndexSharesAsPatchDoes(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	for _, name := range []string{"open.md", "eng.md"} {
		if err := os.WriteFile(filepath.Join(root, name), []byte("# "+name+"\n\nHarbour lighthouse report, "+name+"."), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	k := start(t, root)
	index := func(token, name string, access []string) stack.Response {
		return call(t, k.s, token, http.MethodPost, "/tools/rag_index",
			map[string]any{"file_path": filepath.Join(root, name), "kb_name": ns, "access": access, "wait": true})
	}
	if r := index(opsToken, "open.md", []string{}); r.Status != http.StatusOK {
		t.Fatalf("open.md: %d %s", r.Status, r.Body)
	}
	if r := index(opsToken, "eng.md", []string{"eng"}); r.Status != http.StatusOK {
		t.Fatalf("eng.md: %d %s", r.Status, r.Body)
	}
	openID := ragd.DocumentID(ns, "file://"+filepath.Join(root, "open.md"))
	// PATCH refuses eng restricting an open document; so must an index.
	if r := index(engToken, "open.md", []string{"eng"}); r.Status != http.StatusForbidden {
		t.Fatalf("eng restricting the open document by re-indexing it: %d %s", r.Status, r.Body)
	}
	cs := connect(t, k, engToken)
	res, err := cs.CallTool(t.Context(), &sdk.CallToolParams{Name: "core_ingest", Arguments: map[string]any{
		"source_uri": filepath.Join(root, "open.md"), "kb_name": ns, "access": []string{"eng"}}})
	if err == nil && !res.IsError {
		t.Fatalf("core_ingest restricting the open document as eng: %+v", res.StructuredContent)
	}
	if got := accessOf(t, k, openID); len(got) != 0 {
		t.Fatalf("the open document after eng's refused re-index: %v", got)
	}
	// The open document's text from eng, shared with eng: eng's own.
	r := call(t, k.s, engToken, http.MethodPost, "/tools/rag_index", map[string]any{"text": docTexts["all"], "kb_name": ns, "access": []string{"eng"}, "wait": true})
	if r.Status != http.StatusOK || r.JSON["document_id"] == k.ids["all"] || !slices.Contains(searchNames(t, k, finToken, ns), "all") {
		t.Fatalf("eng indexing the open document's text for itself: %d %s", r.Status, r.Body)
	}
	// A new document shared with fin alone, from eng: hidden from its maker.
	r = call(t, k.s, engToken, http.MethodPost, "/tools/rag_index", map[string]any{"text": "A note for fin only.", "kb_name": ns, "access": []string{"fin"}})
	if r.Status != http.StatusForbidden || !strings.Contains(string(r.Body), "groups that include one of yours") {
		t.Fatalf("eng creating a fin-only document: %d %s", r.Status, r.Body)
	}
	// Shared with eng and fin it is eng's to make.
	r = call(t, k.s, engToken, http.MethodPost, "/tools/rag_index", map[string]any{"text": "A note for eng and fin.", "kb_name": ns, "access": []string{"fin", "eng"}})
	if r.Status != http.StatusAccepted {
		t.Fatalf("eng creating an eng+fin document: %d %s", r.Status, r.Body)
	}
	// A document of eng's, re-shared by eng with fin too: as PATCH allows.
	engID := ragd.DocumentID(ns, "file://"+filepath.Join(root, "eng.md"))
	if r := index(engToken, "eng.md", []string{"eng", "fin"}); r.Status != http.StatusOK || !slices.Equal(accessOf(t, k, engID), []string{"eng", "fin"}) {
		t.Fatalf("eng re-sharing its document: %d %s", r.Status, r.Body)
	}
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// Whether a document hidden from a key holds a text, or has an upload's
// name, is never told: the key's request is answered as for any new text
// or name, makes a document of its own and leaves the hidden one as it is.
func TestNoExistenceOracleAtIngest(t *testing.T) {
	t.Parallel()
	k := start(t)
	guess := func(text string) stack.Response {
		return call(t, k.s, engToken, http.MethodPost, "/tools/rag_index", map[string]any{"text": text, "kb_name": ns, "access": []string{"eng"}})
	}
	right, wrong := guess(docTexts["fin"]), guess("Harbour lighthouse report. A guess that no document holds.")
	if right.Status != wrong.Status || right.Status != http.StatusAccepted || len(right.JSON) != len(wrong.JSON) {
		t.Fatalf("the hidden text: %d %s; a wrong guess: %d %s", right.Status, right.Body, wrong.Status, wrong.Body)
	}
	if id, _ := right.JSON["document_id"].(string); id == k.ids["fin"] {
		t.Fatal("eng's text names fin's document")
	}
	waitJob(t, k, right.JSON["job_id"].(string))
	if got := accessOf(t, k, k.ids["fin"]); !slices.Equal(got, []string{"fin"}) {
		t.Fatalf("fin's document after eng indexed its text: %v", got)
	}
	// An upload's name: fin's is fin's, eng's the same name is eng's.
	names := map[string]string{}
	for _, token := range []string{finToken, engToken} {
		group := keyName[token]
		body, ctype := uploadForm(t, map[string]string{"kb_name": ns, "access": group, "wait": "true"}, "plan.md", "# Plan\n\nHarbour plan of "+group+".")
		up := callRaw(t, k, token, http.MethodPost, "/documents", ctype, body)
		if up.Status != http.StatusOK {
			t.Fatalf("%s uploading plan.md: %d %s", group, up.Status, up.Body)
		}
		names[group] = field(up.JSON["jobs"], "document_id")[0]
	}
	if names["eng"] == names["fin"] {
		t.Fatal("eng's plan.md replaced fin's")
	}
	if got := accessOf(t, k, names["fin"]); !slices.Equal(got, []string{"fin"}) {
		t.Fatalf("fin's plan.md after eng's upload: %v", got)
	}
	// The scoped sources survive an export and an import.
	exp := call(t, k.s, opsToken, http.MethodGet, "/kb/"+ns+"/export", nil)
	imp := callRaw(t, k, opsToken, http.MethodPost, "/kb/copy/import", "application/gzip", exp.Body)
	if imp.Status != http.StatusAccepted {
		t.Fatalf("import: %d %s", imp.Status, imp.Body)
	}
	if status := waitJob(t, k, imp.JSON["job_id"].(string)); status != string(ragd.JobCompleted) {
		r := call(t, k.s, opsToken, http.MethodGet, "/jobs/"+imp.JSON["job_id"].(string), nil)
		t.Fatalf("import job: %s %s", status, r.Body)
	}
}

// A key with roots of its own indexes files inside them alone: a path
// elsewhere in the ingest roots is refused at request time, on every
// path (a file, a directory, a dry run, MCP), exactly as one outside the
// ingest roots; a relative path resolves against the key's roots.
func TestKeyRoots(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	for _, dir := range []string{"eng", "fin"} {
		if err := os.Mkdir(filepath.Join(root, dir), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, dir, dir+".md"), []byte("# "+dir+"\n\nHarbour notes of "+dir+"."), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cfg := authConfig(t, root)
	for i := range cfg.Auth.Keys {
		if cfg.Auth.Keys[i].Name == "eng" {
			cfg.Auth.Keys[i].Roots = []string{filepath.Join(root, "eng")}
		}
	}
	k := startWith(t, cfg)
	finFile := filepath.Join(root, "fin", "fin.md")
	for name, req := range map[string]struct {
		path string
		body map[string]any
	}{
		"file":      {"/tools/rag_index", map[string]any{"file_path": finFile, "kb_name": "other"}},
		"climbing":  {"/tools/rag_index", map[string]any{"file_path": filepath.Join(root, "eng", "..", "fin", "fin.md"), "kb_name": "other"}},
		"directory": {"/tools/rag_index_directory", map[string]any{"directory_path": root, "kb_name": "other"}},
		"dry run":   {"/tools/rag_index_directory", map[string]any{"directory_path": filepath.Join(root, "fin"), "kb_name": "other", "sync": true, "dry_run": true}},
	} {
		if r := call(t, k.s, engToken, http.MethodPost, req.path, req.body); r.Status != http.StatusForbidden {
			t.Errorf("eng indexing outside its roots (%s): %d %s", name, r.Status, r.Body)
		}
	}
	cs := connect(t, k, engToken)
	res, err := cs.CallTool(t.Context(), &sdk.CallToolParams{Name: "core_ingest", Arguments: map[string]any{"source_uri": finFile, "kb_name": "other"}})
	if err == nil && !res.IsError {
		t.Errorf("core_ingest outside eng's roots: %+v", res.StructuredContent)
	}
	if r := call(t, k.s, engToken, http.MethodPost, "/tools/rag_index", map[string]any{"file_path": "eng.md", "kb_name": "other", "wait": true}); r.Status != http.StatusOK {
		t.Fatalf("eng indexing eng.md by a relative path: %d %s", r.Status, r.Body)
	}
	if r := call(t, k.s, finToken, http.MethodPost, "/tools/rag_index", map[string]any{"file_path": finFile, "kb_name": "other", "wait": true}); r.Status != http.StatusOK {
		t.Fatalf("fin, without roots of its own, indexing fin.md: %d %s", r.Status, r.Body)
	}
	// A key whose roots lie outside the ingest roots fails the start.
	bad := authConfig(t, root)
	bad.Auth.Keys[1].Roots = []string{t.TempDir()}
	if _, err := app.New(t.Context(), bad, slog.New(slog.DiscardHandler)); err == nil || !strings.Contains(err.Error(), "outside ingest.roots") {
		t.Fatalf("start with a key root outside the ingest roots: %v", err)
	}
}

// A search in a namespace holding no document the key may see says so (a
// notice; the CLI exits 1), in the same words whether nothing was indexed
// there or all of it is hidden from the key; a search that merely matches
// nothing has no notice. Over REST, MCP and the CLI.
func TestSearchSaysNamespaceIsEmpty(t *testing.T) {
	t.Parallel()
	k := start(t)
	r := call(t, k.s, finToken, http.MethodPost, "/tools/rag_index",
		map[string]any{"text": "Harbour ledger of the quarter.", "kb_name": "finonly", "access": []string{"fin"}, "wait": true})
	if r.Status != http.StatusOK {
		t.Fatalf("fin's index: %d %s", r.Status, r.Body)
	}
	search := func(token, kb, q string) stack.Response {
		return call(t, k.s, token, http.MethodPost, "/tools/rag_search", map[string]any{"query": q, "kb_name": kb})
	}
	hidden, missing := search(engToken, "finonly", "harbour ledger"), search(engToken, "nope", "harbour ledger")
	if hidden.Status != http.StatusOK || missing.Status != http.StatusOK || hidden.JSON["count"].(float64) != 0 ||
		!strings.Contains(string(missing.Body), "holds no documents you may see") ||
		strings.ReplaceAll(string(hidden.Body), "finonly", "nope") != string(missing.Body) {
		t.Fatalf("eng in a namespace of fin's alone: %d %s; in none: %d %s", hidden.Status, hidden.Body, missing.Status, missing.Body)
	}
	if r := search(finToken, "finonly", "harbour ledger"); r.Status != http.StatusOK || r.JSON["count"].(float64) == 0 {
		t.Fatalf("fin in its namespace: %d %s", r.Status, r.Body)
	}
	if r := call(t, k.s, engToken, http.MethodPost, "/tools/rag_search", map[string]any{"query": "zebra xylophone quasar", "kb_name": ns, "mode": "keyword"}); r.Status != http.StatusOK || r.JSON["count"].(float64) != 0 || r.JSON["notice"] != nil {
		t.Fatalf("a search matching nothing: %d %s", r.Status, r.Body)
	}
	cs := connect(t, k, engToken)
	res, err := cs.CallTool(t.Context(), &sdk.CallToolParams{Name: "core_retrieve_text", Arguments: map[string]any{"query": "harbour", "kb_name": "nope"}})
	if err != nil || res.IsError || !strings.Contains(mustJSON(res.StructuredContent), "holds no documents") {
		t.Fatalf("core_retrieve_text in no namespace: %v %s", err, mustJSON(res))
	}
	var out bytes.Buffer
	env := cli.Env{Stdout: &out, Stderr: &out, Getenv: func(string) string { return "" }}
	code := cli.Run(context.Background(), []string{"search", "harbour", "--kb", "nope", "--server", k.s.URL, "--token", engToken}, env)
	if code != cli.ExitFailed || !strings.Contains(out.String(), "holds no documents") {
		t.Fatalf("ragd search --kb nope: exit %d, %s", code, out.String())
	}
}
