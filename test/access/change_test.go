package access_test

import (
	"bytes"
	"mime/multipart"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"ragd"
)

// searchNames is what a hybrid search shows token, by document name.
func searchNames(t *testing.T, k *kb, token, kb string) []string {
	t.Helper()
	r := call(t, k.s, token, http.MethodPost, "/tools/rag_search", map[string]any{"query": "harbour lighthouse report", "kb_name": kb, "top_k": 20})
	if r.Status != http.StatusOK {
		t.Fatalf("search as %s: %d %s", keyName[token], r.Status, r.Body)
	}
	return k.names(field(r.JSON["results"], "document_id"))
}

func accessOf(t *testing.T, k *kb, id string) []string {
	t.Helper()
	r := call(t, k.s, opsToken, http.MethodGet, "/documents/"+id, nil)
	if r.Status != http.StatusOK {
		t.Fatalf("GET /documents/%s: %d %s", id, r.Status, r.Body)
	}
	var out []string
	list, _ := r.JSON["access"].([]any) // null for an open document
	for _, g := range list {
		out = append(out, g.(string))
	}
	return out
}

// PATCH /documents/{id} changes who sees a document at once, the cached
// results included; who may change it, and bad bodies, are refused.
func TestPatchAccess(t *testing.T) {
	t.Parallel()
	k := start(t)
	for _, token := range keyOrder { // warm the cache
		searchNames(t, k, token, ns)
	}
	eng := k.ids["eng"]
	r := call(t, k.s, engToken, http.MethodPatch, "/documents/"+eng+"?kb_name="+ns, map[string]any{"access": []string{"fin", "fin"}})
	if r.Status != http.StatusOK || !slices.Equal(accessOf(t, k, eng), []string{"fin"}) {
		t.Fatalf("eng narrowing its document to fin: %d %s", r.Status, r.Body)
	}
	if got := searchNames(t, k, engToken, ns); slices.Contains(got, "eng") {
		t.Fatalf("eng still finds the document it shared away: %v", got)
	}
	if got := searchNames(t, k, finToken, ns); !slices.Contains(got, "eng") {
		t.Fatalf("fin does not find the document shared with it: %v", got)
	}
	if r := call(t, k.s, engToken, http.MethodGet, "/documents/"+eng, nil); r.Status != http.StatusNotFound {
		t.Fatalf("GET as eng after the change: %d", r.Status)
	}
	// eng may no longer see it, so may not change it back: 404.
	if r := call(t, k.s, engToken, http.MethodPatch, "/documents/"+eng, map[string]any{"access": []string{}}); r.Status != http.StatusNotFound {
		t.Fatalf("PATCH of a hidden document: %d %s", r.Status, r.Body)
	}
	// An open document is the operator's to restrict, not any key's.
	if r := call(t, k.s, noneToken, http.MethodPatch, "/documents/"+k.ids["all"], map[string]any{"access": []string{"eng"}}); r.Status != http.StatusForbidden {
		t.Fatalf("PATCH of an open document by a key without groups: %d %s", r.Status, r.Body)
	}
	if r := call(t, k.s, opsToken, http.MethodPatch, "/documents/"+eng, map[string]any{"access": []string{}}); r.Status != http.StatusOK {
		t.Fatalf("operator opening it: %d %s", r.Status, r.Body)
	}
	if got := searchNames(t, k, noneToken, ns); !slices.Equal(got, []string{"all", "eng"}) {
		t.Fatalf("after opening it, none sees %v", got)
	}
	many := make([]string, 1000)
	for i := range many {
		many[i] = "g" + strings.Repeat("x", i)[:i%50]
	}
	for name, body := range map[string]any{
		"unknown field":  map[string]any{"access": []string{"eng"}, "acces": []string{"fin"}},
		"non-strings":    map[string]any{"access": []any{"eng", 7}},
		"not a list":     map[string]any{"access": "eng"},
		"1,000 groups":   map[string]any{"access": many},
		"10 KB name":     map[string]any{"access": []string{strings.Repeat("g", 10<<10)}},
		"missing access": map[string]any{},
		"null access":    []byte(`{"access":null}`),
	} {
		r := call(t, k.s, opsToken, http.MethodPatch, "/documents/"+eng, body)
		if r.Status != http.StatusUnprocessableEntity || len(r.Body) > 2000 {
			t.Fatalf("PATCH with %s: %d %.300s", name, r.Status, r.Body)
		}
	}
	if r := call(t, k.s, opsToken, http.MethodPatch, "/documents/0123456789abcdef0123456789abcdef", map[string]any{"access": []string{}}); r.Status != http.StatusNotFound {
		t.Fatalf("PATCH of a missing document: %d", r.Status)
	}
}

// Access is given at ingest by every route (JSON, the upload form, MCP
// and directories), bad access is a 422, and a key may not replace a
// document hidden from it.
func TestIngestAccess(t *testing.T) {
	t.Parallel()
	k := start(t)
	for name, access := range map[string]any{"non-strings": []any{1}, "10 KB name": []string{strings.Repeat("x", 10<<10)}, "comma": []string{"a,b"}} {
		r := call(t, k.s, opsToken, http.MethodPost, "/tools/rag_index", map[string]any{"text": "x", "kb_name": ns, "access": access})
		if r.Status != http.StatusUnprocessableEntity {
			t.Fatalf("index with access %s: %d %.300s", name, r.Status, r.Body)
		}
	}
	// Re-indexing without access keeps the document's.
	r := call(t, k.s, opsToken, http.MethodPost, "/tools/rag_index", map[string]any{"text": docTexts["eng"], "kb_name": ns, "force": true, "wait": true})
	if r.Status != http.StatusOK || !slices.Equal(accessOf(t, k, k.ids["eng"]), []string{"eng"}) {
		t.Fatalf("re-index without access: %d %s", r.Status, r.Body)
	}
	// The same unchanged text with a new access is shared anew, in place.
	r = call(t, k.s, opsToken, http.MethodPost, "/tools/rag_index", map[string]any{"text": docTexts["eng"], "kb_name": ns, "access": []string{"ops"}, "wait": true})
	if r.Status != http.StatusOK || !slices.Equal(accessOf(t, k, k.ids["eng"]), []string{"ops"}) || slices.Contains(searchNames(t, k, engToken, ns), "eng") {
		t.Fatalf("unchanged text, new access: %d %s, access %v", r.Status, r.Body, accessOf(t, k, k.ids["eng"]))
	}

	body, ctype := uploadForm(t, map[string]string{"kb_name": ns, "access": "fin, eng", "wait": "true"}, "memo.md", "# Memo\n\nHarbour lighthouse report on the ferry timetable.")
	up := callRaw(t, k, engToken, http.MethodPost, "/documents", ctype, body)
	if up.Status != http.StatusOK {
		t.Fatalf("upload: %d %s", up.Status, up.Body)
	}
	twice := "--b\r\nContent-Disposition: form-data; name=\"access\"\r\n\r\neng\r\n--b\r\nContent-Disposition: form-data; name=\"access\"\r\n\r\nfin\r\n" +
		"--b\r\nContent-Disposition: form-data; name=\"file\"; filename=\"x.md\"\r\n\r\n# X\r\n--b--\r\n"
	if r := callRaw(t, k, engToken, http.MethodPost, "/documents", "multipart/form-data; boundary=b", []byte(twice)); r.Status != http.StatusUnprocessableEntity ||
		!strings.Contains(string(r.Body), "access is given twice") {
		t.Fatalf("upload with access given twice: %d %s", r.Status, r.Body)
	}
	memo := field(up.JSON["jobs"], "document_id")[0]
	if got := accessOf(t, k, memo); !slices.Equal(got, []string{"eng", "fin"}) {
		t.Fatalf("uploaded with access=fin, eng: %v", got)
	}
	if got := searchNames(t, k, noneToken, ns); slices.Contains(got, memo) {
		t.Fatalf("none finds the upload shared with eng and fin: %v", got)
	}

	cs := connect(t, k, finToken)
	out := tool(t, cs, "core_ingest", map[string]any{"source_uri": "Harbour lighthouse report: the fin ledger.", "source_type": "text",
		"kb_name": ns, "access": []string{"fin"}, "wait": true})
	ledger, _ := out["document_id"].(string)
	if got := accessOf(t, k, ledger); !slices.Equal(got, []string{"fin"}) {
		t.Fatalf("core_ingest with access [fin]: %v (%v)", got, out)
	}
	if slices.Contains(searchNames(t, k, engToken, ns), ledger) {
		t.Fatal("eng finds the ledger shared with fin only")
	}
}

// A directory job gives every file its access; a later sync without one
// keeps it (a changed file too), and a sync with another re-shares even
// the unchanged files.
func TestDirectoryAccess(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	for name, text := range map[string]string{"a.md": "# A\n\nHarbour lighthouse report, part one.", "b.md": "# B\n\nHarbour lighthouse report, part two."} {
		if err := os.WriteFile(filepath.Join(root, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	k := start(t, root)
	sync := func(access any) {
		t.Helper()
		body := map[string]any{"directory_path": root, "kb_name": "dir", "sync": true, "wait": true}
		if access != nil {
			body["access"] = access
		}
		r := call(t, k.s, opsToken, http.MethodPost, "/tools/rag_index_directory", body)
		if r.Status != http.StatusOK {
			t.Fatalf("sync: %d %s", r.Status, r.Body)
		}
		if id, _ := r.JSON["job_id"].(string); id != "" {
			waitJob(t, k, id)
		}
	}
	ids := []string{ragd.DocumentID("dir", "file://"+filepath.Join(root, "a.md")), ragd.DocumentID("dir", "file://"+filepath.Join(root, "b.md"))}
	check := func(when string, want []string) {
		t.Helper()
		for _, id := range ids {
			if got := accessOf(t, k, id); !slices.Equal(got, want) {
				t.Fatalf("%s: access %v, want %v", when, got, want)
			}
		}
	}
	sync([]string{"eng"})
	check("directory job with access [eng]", []string{"eng"})
	if err := os.WriteFile(filepath.Join(root, "a.md"), []byte("# A\n\nHarbour lighthouse report, part one, revised."), 0o644); err != nil {
		t.Fatal(err)
	}
	sync(nil)
	check("sync without access after a change", []string{"eng"})
	if got := searchNames(t, k, finToken, "dir"); len(got) != 0 {
		t.Fatalf("fin finds %v in a directory shared with eng", got)
	}
	sync([]string{"fin"})
	check("sync with access [fin] of unchanged files", []string{"fin"})
	if got := searchNames(t, k, engToken, "dir"); len(got) != 0 {
		t.Fatalf("eng finds %v after the directory was shared with fin", got)
	}
	// eng may not share with itself what is hidden from it: each file fails.
	r := call(t, k.s, engToken, http.MethodPost, "/tools/rag_index_directory",
		map[string]any{"directory_path": root, "kb_name": "dir", "sync": true, "access": []string{"eng"}, "wait": true})
	if r.Status != http.StatusOK {
		t.Fatalf("eng's sync: %d %s", r.Status, r.Body)
	}
	if id, _ := r.JSON["job_id"].(string); id != "" {
		waitJob(t, k, id)
	}
	check("eng re-sharing documents hidden from it", []string{"fin"})
	if got := searchNames(t, k, engToken, "dir"); len(got) != 0 {
		t.Fatalf("eng finds %v after trying to re-share the directory", got)
	}
}

// Export and import are the operator's, and an archive carries access:
// imported elsewhere, each document is as hidden as it was.
func TestArchiveCarriesAccess(t *testing.T) {
	t.Parallel()
	k := start(t)
	if r := call(t, k.s, engToken, http.MethodGet, "/kb/"+ns+"/export", nil); r.Status != http.StatusForbidden {
		t.Fatalf("export by eng: %d %s", r.Status, r.Body)
	}
	exp := call(t, k.s, opsToken, http.MethodGet, "/kb/"+ns+"/export", nil)
	if exp.Status != http.StatusOK {
		t.Fatalf("export by the operator: %d %.300s", exp.Status, exp.Body)
	}
	if r := callRaw(t, k, engToken, http.MethodPost, "/kb/copy/import", "application/gzip", exp.Body); r.Status != http.StatusForbidden {
		t.Fatalf("import by eng: %d %s", r.Status, r.Body)
	}
	imp := callRaw(t, k, opsToken, http.MethodPost, "/kb/copy/import", "application/gzip", exp.Body)
	if imp.Status != http.StatusAccepted {
		t.Fatalf("import by the operator: %d %s", imp.Status, imp.Body)
	}
	if status := waitJob(t, k, imp.JSON["job_id"].(string)); status != string(ragd.JobCompleted) {
		t.Fatalf("import job: %s", status)
	}
	for _, token := range keyOrder {
		r := call(t, k.s, token, http.MethodPost, "/tools/rag_search", map[string]any{"query": "harbour lighthouse report", "kb_name": "copy", "top_k": 10})
		var got []string
		for _, src := range field(r.JSON["results"], "source") {
			for name, text := range docTexts {
				if src == "text://"+ragd.ContentHash([]byte(text))[:32] {
					got = append(got, name)
				}
			}
		}
		slices.Sort(got)
		if !slices.Equal(got, sees[token]) {
			t.Fatalf("imported copy as %s: %v, want %v", keyName[token], got, sees[token])
		}
	}
}

// waitJob polls a job as the operator until it ends, and returns its status.
func waitJob(t *testing.T, k *kb, id string) string {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		r := call(t, k.s, opsToken, http.MethodGet, "/jobs/"+id, nil)
		if r.Status != http.StatusOK {
			t.Fatalf("GET /jobs/%s: %d %s", id, r.Status, r.Body)
		}
		switch status, _ := r.JSON["status"].(string); status {
		case string(ragd.JobCompleted), string(ragd.JobFailed), string(ragd.JobCancelled):
			return status
		}
	}
	t.Fatalf("job %s did not end within a minute", id)
	return ""
}

func uploadForm(t *testing.T, fields map[string]string, filename, content string) ([]byte, string) {
	t.Helper()
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	for k, v := range fields {
		_ = w.WriteField(k, v)
	}
	fw, err := w.CreateFormFile("file", filename)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = fw.Write([]byte(content))
	_ = w.Close()
	return buf.Bytes(), w.FormDataContentType()
}
