package api_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"ragd"
	"ragd/internal/platform/config"
	"ragd/internal/testkit/stack"
)

// formPart is one part of a multipart form: a file when filename is set
// (or file is true), else a text field.
type formPart struct {
	name, filename, value string
	file                  bool
	// disposition, when set, is the part's Content-Disposition as is.
	disposition string
}

func field(name, value string) formPart { return formPart{name: name, value: value} }
func file(filename, content string) formPart {
	return formPart{name: "file", filename: filename, value: content, file: true}
}

// multipartBody encodes parts in order and returns the body and its type.
func multipartBody(t *testing.T, parts ...formPart) ([]byte, string) {
	t.Helper()
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	for _, p := range parts {
		var pw io.Writer
		var err error
		if p.disposition != "" {
			pw, err = w.CreatePart(map[string][]string{"Content-Disposition": {p.disposition}})
		} else if p.file || p.filename != "" {
			pw, err = w.CreateFormFile(p.name, p.filename)
		} else {
			pw, err = w.CreateFormField(p.name)
		}
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.WriteString(pw, p.value)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes(), w.FormDataContentType()
}

// uploadAnswer is POST /documents' body.
type uploadAnswer struct {
	KBName string `json:"kb_name"`
	Jobs   []struct {
		JobID         *string `json:"job_id"`
		Status        string  `json:"status"`
		DocumentID    string  `json:"document_id"`
		Filename      string  `json:"filename"`
		Source        string  `json:"source"`
		Bytes         int64   `json:"bytes"`
		DedupHit      bool    `json:"dedup_hit"`
		ChunksIndexed *int    `json:"chunks_indexed"`
		Error         string  `json:"error"`
	} `json:"jobs"`
}

// upload posts a multipart form (with token, when given) and decodes the answer.
func upload(t *testing.T, s *stack.Stack, token string, parts ...formPart) (int, uploadAnswer, []byte) {
	t.Helper()
	body, ctype := multipartBody(t, parts...)
	req, _ := http.NewRequest(http.MethodPost, s.URL+"/documents", bytes.NewReader(body))
	req.Header.Set("Content-Type", ctype)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	var out uploadAnswer
	_ = json.Unmarshal(raw, &out)
	return resp.StatusCode, out, raw
}

// uploadsDir lists what the stack keeps in <data.dir>/uploads.
func uploadsDir(t *testing.T, cfg config.Config) []string {
	t.Helper()
	entries, err := os.ReadDir(filepath.Join(cfg.Data.Dir, "uploads"))
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

func sources(results []map[string]any) map[string]bool {
	m := map[string]bool{}
	for _, r := range results {
		m[str(r, "source")] = true
	}
	return m
}

const (
	alphaV1 = "# Walrus notes\n\nThe walrus sings about saffron on the ice floe every morning.\n"
	alphaV2 = "# Walrus notes\n\nThe narwhal hums about cardamom beneath the glacier at dusk.\n"
	betaTxt = "Quokka migration follows the coastal heath each spring, said the ranger.\n"
)

// Two files in one form are both indexed and searchable, each as
// upload://<kb>/<name>; uploading a name again replaces that document, and
// the same bytes again are a dedup hit.
func TestUploadIndexesFilesAsVersionedDocuments(t *testing.T) {
	t.Parallel()
	cfg := stack.Config(t)
	s := stack.Start(t, cfg, true)

	status, out, raw := upload(t, s, "", field("kb_name", "kb"), field("tags", "arctic, notes"), field("tags", "field"),
		file("alpha.md", alphaV1), file(`C:\Users\me\beta.txt`, betaTxt), field("wait", "true"))
	if status != http.StatusOK || out.KBName != "kb" || len(out.Jobs) != 2 {
		t.Fatalf("upload: %d %s", status, raw)
	}
	alphaID, betaID := ragd.DocumentID("kb", "upload://kb/alpha.md"), ragd.DocumentID("kb", "upload://kb/beta.txt")
	for i, want := range []struct{ id, name string }{{alphaID, "alpha.md"}, {betaID, "beta.txt"}} {
		j := out.Jobs[i]
		if j.JobID == nil || j.Status != "completed" || j.DocumentID != want.id || j.Filename != want.name ||
			j.Source != "upload://kb/"+want.name || j.DedupHit || j.ChunksIndexed == nil || *j.ChunksIndexed == 0 {
			t.Fatalf("job %d: %s", i, raw)
		}
	}
	if got := sources(searchBody(t, s, map[string]any{"query": "walrus saffron", "kb_name": "kb"})); !got["upload://kb/alpha.md"] {
		t.Fatalf("alpha not found: %v", got)
	}
	if got := sources(searchBody(t, s, map[string]any{"query": "quokka migration", "kb_name": "kb"})); !got["upload://kb/beta.txt"] {
		t.Fatalf("beta not found: %v", got)
	}
	doc := s.Do(t, http.MethodGet, "/documents/"+alphaID+"?kb_name=kb", nil)
	if doc.Status != 200 || fmt.Sprint(doc.JSON["tags"]) != "[arctic notes field]" || doc.JSON["source_type"] != "md" {
		t.Fatalf("document: %d %s", doc.Status, doc.Body)
	}
	// The bytes are kept by their sha256, and no temporary file is left.
	if got := uploadsDir(t, cfg); len(got) != 2 || !contains(got, ragd.ContentHash([]byte(alphaV1))) || !contains(got, ragd.ContentHash([]byte(betaTxt))) {
		t.Fatalf("uploads dir: %v", got)
	}

	// The same name with new bytes: the same document, its old text gone.
	status, out, raw = upload(t, s, "", field("kb_name", "kb"), file("alpha.md", alphaV2), field("wait", "true"))
	if status != http.StatusOK || len(out.Jobs) != 1 || out.Jobs[0].DocumentID != alphaID || out.Jobs[0].Status != "completed" || out.Jobs[0].DedupHit {
		t.Fatalf("re-upload: %d %s", status, raw)
	}
	for _, r := range searchBody(t, s, map[string]any{"query": "walrus saffron", "kb_name": "kb"}) {
		if strings.Contains(str(r, "text"), "saffron") {
			t.Fatalf("the old version is still found: %v", r)
		}
	}
	if got := sources(searchBody(t, s, map[string]any{"query": "narwhal cardamom", "kb_name": "kb"})); !got["upload://kb/alpha.md"] {
		t.Fatalf("new version not found: %v", got)
	}
	if list := s.Do(t, http.MethodGet, "/documents?kb_name=kb", nil); list.JSON["total"] != float64(2) {
		t.Fatalf("documents: %s", list.Body)
	}

	// The same bytes again: a dedup hit, no job, answered 200.
	status, out, raw = upload(t, s, "", field("kb_name", "kb"), file("alpha.md", alphaV2))
	if status != http.StatusOK || len(out.Jobs) != 1 || !out.Jobs[0].DedupHit || out.Jobs[0].JobID != nil || out.Jobs[0].DocumentID != alphaID {
		t.Fatalf("same bytes again: %d %s", status, raw)
	}
	// Without wait, a new file is queued: 202 with its job.
	status, out, raw = upload(t, s, "", field("kb_name", "kb"), file("gamma.txt", "Gamma rays from the pulsar."))
	if status != http.StatusAccepted || out.Jobs[0].JobID == nil || out.Jobs[0].Status != "queued" {
		t.Fatalf("no wait: %d %s", status, raw)
	}
	if job := s.WaitJob(t, *out.Jobs[0].JobID, time.Minute); job.Status != ragd.JobCompleted {
		t.Fatalf("gamma job: %+v", job)
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// The job reads the bytes after the request has ended (here, once a worker
// starts): they are kept by hash, not with the request. Waiting past
// http.wait_timeout answers 202 with the jobs' current states.
func TestUploadJobFindsItsBytesAfterTheRequest(t *testing.T) {
	t.Parallel()
	cfg := stack.Config(t)
	cfg.HTTP.WaitTimeout = 300 * time.Millisecond
	s := stack.Start(t, cfg, false)
	status, out, raw := upload(t, s, "", file("later.md", "# Later\n\nThe heron waits for the tide."), field("wait", "true"))
	if status != http.StatusAccepted || len(out.Jobs) != 1 || out.Jobs[0].Status != "queued" || out.KBName != "default" {
		t.Fatalf("upload with no worker: %d %s", status, raw)
	}
	w := s.NewWorker()
	if err := w.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.Shutdown)
	if job := s.WaitJob(t, *out.Jobs[0].JobID, time.Minute); job.Status != ragd.JobCompleted {
		t.Fatalf("job: %+v", job)
	}
	if got := sources(searchBody(t, s, map[string]any{"query": "heron tide"})); !got["upload://default/later.md"] {
		t.Fatalf("not found: %v", got)
	}
}

// countingReader is an endless file body that counts what was read of it.
type countingReader struct{ n atomic.Int64 }

func (c *countingReader) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = 'a'
	}
	c.n.Add(int64(len(p)))
	return len(p), nil
}

// A file over ingest.max_file_bytes is refused with 413 once that much is
// read, not after the whole body; a Content-Length over the request's
// bound is refused before any of it is read.
func TestUploadOverLimitIsRefusedWithoutReadingIt(t *testing.T) {
	t.Parallel()
	cfg := stack.Config(t)
	cfg.Ingest.MaxFileBytes = 1 << 20
	// The request's bound (65 MiB) is far above the file's, so only the
	// file limit can keep the read near 1 MiB.
	cfg.Ingest.MaxUploadFiles = 64
	s := stack.Start(t, cfg, false)
	const sent = 256 << 20 // what the client would send, far more than either
	const slack = 16 << 20 // socket buffers and the server's post-handler drain

	// Chunked, so only the part limit can stop it.
	body := &countingReader{}
	status, detail := rawPost(t, s, body, sent, false)
	if status != http.StatusRequestEntityTooLarge || !strings.Contains(detail, "max_file_bytes") {
		t.Fatalf("over the file limit: %d %s", status, detail)
	}
	t.Logf("file limit %d: the client got to read %d of %d bytes", cfg.Ingest.MaxFileBytes, body.n.Load(), int64(sent))
	if n := body.n.Load(); n > cfg.Ingest.MaxFileBytes+slack {
		t.Fatalf("the server read %d bytes of a body with a %d-byte file limit", n, cfg.Ingest.MaxFileBytes)
	}
	// A declared length over max_upload_files x max_file_bytes: refused at once.
	body = &countingReader{}
	status, detail = rawPost(t, s, body, sent, true)
	if status != http.StatusRequestEntityTooLarge {
		t.Fatalf("over the request bound: %d %s", status, detail)
	}
	t.Logf("declared length over the bound: the client got to read %d bytes", body.n.Load())
	if n := body.n.Load(); n > slack {
		t.Fatalf("the server read %d bytes of a body it should have refused by its length", n)
	}
	if got := uploadsDir(t, cfg); len(got) != 0 {
		t.Fatalf("a refused upload left %v", got)
	}
}

// rawPost sends POST /documents over a bare connection: a multipart head,
// then up to size bytes of body as one file, written concurrently with
// reading the answer, so an early answer is read even while the client is
// still writing. With declared, the request has a Content-Length; without,
// it is chunked.
func rawPost(t *testing.T, s *stack.Stack, body io.Reader, size int64, declared bool) (int, string) {
	t.Helper()
	u, _ := url.Parse(s.URL)
	conn, err := net.Dial("tcp", u.Host)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(time.Minute))
	const boundary = "XBOUNDARYX"
	head := "--" + boundary + "\r\nContent-Disposition: form-data; name=\"file\"; filename=\"big.txt\"\r\nContent-Type: text/plain\r\n\r\n"
	req := "POST /documents HTTP/1.1\r\nHost: " + u.Host + "\r\nContent-Type: multipart/form-data; boundary=" + boundary + "\r\n"
	if declared {
		req += fmt.Sprintf("Content-Length: %d\r\n\r\n", int64(len(head))+size)
	} else {
		req += "Transfer-Encoding: chunked\r\n\r\n"
	}
	go func() {
		if _, err := io.WriteString(conn, req); err != nil {
			return
		}
		var w io.Writer = conn
		if !declared {
			cw := newChunkedWriter(conn)
			w = cw
		}
		_, _ = io.WriteString(w, head)
		_, _ = io.Copy(w, io.LimitReader(body, size)) // stops when the server closes
	}()
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("no answer: %v", err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	var out struct {
		Detail any `json:"detail"`
	}
	_ = json.Unmarshal(raw, &out)
	return resp.StatusCode, fmt.Sprint(out.Detail)
}

// chunkedWriter frames writes as HTTP/1.1 chunks.
type chunkedWriter struct{ w io.Writer }

func newChunkedWriter(w io.Writer) *chunkedWriter { return &chunkedWriter{w: w} }

func (c *chunkedWriter) Write(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	if _, err := fmt.Fprintf(c.w, "%x\r\n", len(p)); err != nil {
		return 0, err
	}
	if _, err := c.w.Write(p); err != nil {
		return 0, err
	}
	if _, err := io.WriteString(c.w, "\r\n"); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Bad uploads are refused with the right status and a message that says
// why, and leave nothing in the uploads directory.
func TestUploadRefusals(t *testing.T) {
	t.Parallel()
	cfg := stack.Config(t)
	cfg.Ingest.MaxUploadFiles = 2
	s := stack.Start(t, cfg, false)
	cases := []struct {
		name   string
		parts  []formPart
		status int
		want   string
	}{
		{"unsupported type", []formPart{file("tool.exe", "MZ")}, 422, ".pdf"},
		{"no extension", []formPart{file("notes", "text")}, 422, "unsupported file type"},
		{"no filename", []formPart{{name: "file", value: "x", file: true}}, 422, "filename"},
		{"only a path", []formPart{file("/", "x")}, 422, "no usable name"},
		{"dot dot", []formPart{file("..", "x")}, 422, "no usable name"},
		{"control character", []formPart{{disposition: `form-data; name="file"; filename*=UTF-8''a%01b.md`, value: "x"}}, 422, "control characters"},
		{"bidi override in the name", []formPart{{disposition: `form-data; name="file"; filename*=UTF-8''invoice%E2%80%AEdm.exe.md`, value: "x"}}, 422, "bidirectional control character U+202E"},
		{"zero width space in the name", []formPart{{disposition: `form-data; name="file"; filename*=UTF-8''re%E2%80%8Bport.md`, value: "x"}}, 422, `"loc":["body","file"],"msg":"file name \"re\\u200bport.md\" holds the invisible character U+200B`},
		{"byte order mark in the name", []formPart{{disposition: `form-data; name="file"; filename*=UTF-8''%EF%BB%BFreport.md`, value: "x"}}, 422, "invisible character U+FEFF"},
		{"name too long", []formPart{file(strings.Repeat("n", 300)+".md", "x")}, 422, "at most 255"},
		{"file under another field", []formPart{{name: "files", filename: "a.md", value: "x"}}, 422, "named file"},
		{"no file", []formPart{field("kb_name", "kb")}, 422, "at least one file"},
		{"same name twice", []formPart{file("a.md", "one"), file("a.md", "two")}, 422, "twice"},
		{"too many files", []formPart{file("a.md", "1"), file("b.md", "2"), file("c.md", "3")}, 413, "max_upload_files"},
		{"bad wait", []formPart{field("wait", "maybe"), file("a.md", "x")}, 422, "true or false"},
		{"bad namespace", []formPart{field("kb_name", "Bad Name"), file("a.md", "x")}, 422, "kb_name"},
		{"kb_name twice", []formPart{field("kb_name", "a"), field("kb_name", "b"), file("a.md", "x")}, 422, "twice"},
		{"tag too long", []formPart{field("tags", strings.Repeat("t", 101)), file("a.md", "x")}, 422, "tags"},
	}
	for _, c := range cases {
		status, _, raw := upload(t, s, "", c.parts...)
		if status != c.status || !strings.Contains(string(raw), c.want) {
			t.Errorf("%s: %d %s, want %d mentioning %q", c.name, status, raw, c.status, c.want)
		}
	}
	// Not multipart: 415, as a JSON endpoint answers a form.
	for _, ctype := range []string{"application/json", "text/plain", "", "application/x-www-form-urlencoded"} {
		req, _ := http.NewRequest(http.MethodPost, s.URL+"/documents", strings.NewReader(`{"file":"x"}`))
		if ctype != "" {
			req.Header.Set("Content-Type", ctype)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		raw, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnsupportedMediaType || !strings.Contains(string(raw), "multipart/form-data") {
			t.Errorf("Content-Type %q: %d %s", ctype, resp.StatusCode, raw)
		}
	}
	// A truncated multipart body is a 400.
	body, ctype := multipartBody(t, file("a.md", "x"))
	req, _ := http.NewRequest(http.MethodPost, s.URL+"/documents", bytes.NewReader(body[:len(body)-10]))
	req.Header.Set("Content-Type", ctype)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest || !strings.Contains(string(raw), "malformed multipart") {
		t.Errorf("truncated body: %d %s", resp.StatusCode, raw)
	}
	if got := uploadsDir(t, cfg); len(got) != 0 {
		t.Errorf("refused uploads left %v", got)
	}
}

// A key limited to a namespace cannot upload into another: refused before
// the file is read when kb_name comes first, and after it (leaving nothing
// behind) when it comes last.
func TestUploadRespectsNamespaceRights(t *testing.T) {
	t.Parallel()
	cfg := stack.Config(t)
	cfg.Auth.Mode = "static-token"
	cfg.Auth.Keys = []config.AuthKey{{Name: "admin", Token: "tok-admin-0123456789", Groups: []string{"*"}}, {Name: "finance", Token: "tok-finance-0123456789", Namespaces: []string{"finance"}}}
	s := stack.Start(t, cfg, false)
	const finance = "tok-finance-0123456789"
	for _, parts := range [][]formPart{
		{field("kb_name", "hr"), file("pay.md", "Payroll runs on the 25th.")},
		{file("pay.md", "Payroll runs on the 25th."), field("kb_name", "hr")},
		{file("pay.md", "Payroll runs on the 25th.")}, // the default namespace is not finance's either
	} {
		status, _, raw := upload(t, s, finance, parts...)
		if status != http.StatusForbidden || !strings.Contains(string(raw), "may not access namespace") {
			t.Fatalf("finance key uploading elsewhere: %d %s", status, raw)
		}
	}
	if got := uploadsDir(t, cfg); len(got) != 0 {
		t.Fatalf("forbidden uploads left %v", got)
	}
	if status, _, raw := upload(t, s, "", field("kb_name", "finance"), file("q3.md", "x")); status != http.StatusUnauthorized {
		t.Fatalf("no key: %d %s", status, raw)
	}
	status, out, raw := upload(t, s, finance, field("kb_name", "finance"), file("q3.md", "Q3 revenue rose."))
	// A key that does not see every document uploads under its scope.
	if status != http.StatusAccepted || !strings.HasPrefix(out.Jobs[0].Source, "upload://finance/~") ||
		out.Jobs[0].DocumentID != ragd.DocumentID("finance", out.Jobs[0].Source) {
		t.Fatalf("finance key uploading to finance: %d %s", status, raw)
	}
}
