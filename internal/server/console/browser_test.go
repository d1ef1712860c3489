package console_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"ragd/internal/platform/config"
	"ragd/internal/testkit/stack"
	"ragd/internal/testkit/testenv"
)

// shotsDir also keeps the screenshots past the test, for a person to look
// at; the test's own copies are under its temp dir.
const shotsDir = "/tmp/ui-shots"

// browser starts headless chromium for t; its tabs share the returned
// context, which ends with the test or after timeout.
func browser(t *testing.T, timeout time.Duration) context.Context {
	t.Helper()
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(testenv.Chromium(t)),
		chromedp.NoSandbox, // tests may run as root, where the sandbox refuses to start
		chromedp.DisableGPU,
		chromedp.WindowSize(1440, 1000),
		chromedp.UserDataDir(t.TempDir()),
	)
	ctx, cancelTimeout := context.WithTimeout(context.Background(), timeout)
	actx, cancelAlloc := chromedp.NewExecAllocator(ctx, opts...)
	bctx, cancelBrowser := chromedp.NewContext(actx, chromedp.WithLogf(t.Logf))
	t.Cleanup(func() { cancelBrowser(); cancelAlloc(); cancelTimeout() })
	if err := chromedp.Do(bctx); err != nil {
		t.Fatalf("start chromium: %v", err)
	}
	return bctx
}

// do runs the steps of one part of a test, failing it with the page's text.
func do(t *testing.T, ctx context.Context, step string, steps ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	if err := chromedp.Do(ctx, steps...); err != nil {
		page, _ := chromedp.Run(ctx, chromedp.Text(chromedp.CSS("body")))
		t.Fatalf("%s: %v\npage text:\n%s", step, err, page)
	}
}

// css waits until an element matching sel is visible.
func css(sel string) chromedp.Action[chromedp.Void] { return chromedp.WaitVisible(chromedp.CSS(sel)) }

// click clicks the first element matching sel.
func click(sel string) chromedp.Action[chromedp.Void] { return chromedp.Click(chromedp.CSS(sel)) }

// until waits until a JavaScript expression is true.
func until(expr string) chromedp.Action[chromedp.Void] {
	return chromedp.Poll[chromedp.Void](expr, chromedp.WithPollingTimeout(90*time.Second))
}

// screenshot saves the whole page as name.png under t's temp dir and a
// copy under shotsDir, and logs both paths.
func screenshot(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatalf("screenshot %s: %v", name, err)
	}
	path := filepath.Join(t.TempDir(), name+".png")
	if err := os.WriteFile(path, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot %s: %s", name, path)
	if err := os.MkdirAll(shotsDir, 0o755); err == nil {
		if err := os.WriteFile(filepath.Join(shotsDir, name+".png"), png, 0o644); err == nil {
			t.Logf("copy: %s", filepath.Join(shotsDir, name+".png"))
		}
	}
}

// textOf reads the text of the first element matching sel.
func textOf(t *testing.T, ctx context.Context, sel string) string {
	t.Helper()
	s, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(sel)))
	if err != nil {
		t.Fatalf("read %s: %v", sel, err)
	}
	return s
}

// eval runs a JavaScript expression, awaiting a promise.
func eval[T any](t *testing.T, ctx context.Context, expr string) T {
	t.Helper()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](expr, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatalf("evaluate %s: %v", expr, err)
	}
	return v
}

// dropFile fires a drop of one text file on the upload zone, as dragging
// it from the desktop would.
func dropFile(name, content string) chromedp.Action[chromedp.Void] {
	return chromedp.Evaluate[chromedp.Void](`(() => {
		const dt = new DataTransfer();
		dt.items.add(new File([` + jsString(content) + `], ` + jsString(name) + `, {type: "text/markdown"}));
		const zone = document.querySelector("#dropzone");
		zone.dispatchEvent(new DragEvent("dragover", {dataTransfer: dt, bubbles: true, cancelable: true}));
		zone.dispatchEvent(new DragEvent("drop", {dataTransfer: dt, bubbles: true, cancelable: true}));
	})()`)
}

func jsString(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`)
	return `"` + r.Replace(s) + `"`
}

func TestConsoleUploadSearchAsk(t *testing.T) {
	t.Parallel()
	ctx := browser(t, 3*time.Minute)
	s := stack.Start(t, stack.Config(t), true)
	file := filepath.Join(t.TempDir(), "lighthouse.md")
	body := "# Lighthouse log\n\nThe Zephyrine lighthouse keeper records the tides every dawn in a brass-bound ledger.\n\n" +
		"## Supplies\n\nLamp oil arrives by boat on the first Monday of each month.\n"
	if err := os.WriteFile(file, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}

	do(t, ctx, "load /ui/", chromedp.Navigate(s.URL+"/ui/"), css("#app"))
	if who := textOf(t, ctx, "#whoami"); !strings.Contains(who, "auth disabled") {
		t.Errorf("header: %q", who)
	}
	// The file picker, then the job's bar until it completes.
	do(t, ctx, "upload with the file picker", chromedp.SetUploadFiles(chromedp.CSS("#file-input"), []string{file}, chromedp.NodeReady),
		css(`#jobs li[data-status]`))
	do(t, ctx, "job completes", css(`#jobs li[data-status="completed"]`))
	if job := textOf(t, ctx, `#jobs li[data-status="completed"]`); !strings.Contains(job, "lighthouse.md") || !strings.Contains(job, "chunks") {
		t.Errorf("job entry: %q", job)
	}
	do(t, ctx, "document listed", css(`#documents tr[data-doc]`))
	if doc := textOf(t, ctx, "#documents"); !strings.Contains(doc, "upload://default/lighthouse.md") {
		t.Errorf("documents: %q", doc)
	}
	do(t, ctx, "namespace counts", until(`document.querySelector('#namespaces li[data-ns="default"]')?.textContent.includes("1 document ·")`))

	// Search: the numbered source, then its chunk.
	do(t, ctx, "search", chromedp.SendKeys(chromedp.CSS("#query"), "Zephyrine lighthouse tides"),
		click("#search-btn"), css("#results li[data-chunk]"))
	first := textOf(t, ctx, "#results li[data-chunk]")
	if !strings.Contains(first, "[1]") || !strings.Contains(first, "upload://default/lighthouse.md") || !strings.Contains(first, "score") {
		t.Errorf("first search result: %q", first)
	}
	do(t, ctx, "open the chunk", click("#results li[data-chunk] .open-chunk"), css("#chunk-dialog[open]"))
	if chunk := textOf(t, ctx, "#chunk-text"); !strings.Contains(chunk, "Zephyrine") {
		t.Errorf("chunk text: %q", chunk)
	}
	screenshot(t, ctx, "console-chunk")
	do(t, ctx, "close the chunk", click("#chunk-close"), chromedp.WaitNotPresent(chromedp.CSS("#chunk-dialog[open]")))

	// Ask: an answer with its numbered sources.
	do(t, ctx, "ask", click("#ask-btn"), css("#answer .route"))
	if answer := textOf(t, ctx, "#answer"); !strings.Contains(answer, "dawn") || !strings.Contains(answer, "route:") {
		t.Errorf("answer: %q", answer)
	}
	if src := textOf(t, ctx, "#results"); !strings.Contains(src, "[1]") || !strings.Contains(src, "lighthouse.md") {
		t.Errorf("answer sources: %q", src)
	}
	screenshot(t, ctx, "console-answer")

	// Drag and drop a second file; then delete it (two clicks).
	do(t, ctx, "drop a file", dropFile("ferry.md", "# Ferry\n\nThe ferry to Quillon island leaves at noon."),
		until(`document.querySelectorAll('#jobs li[data-status="completed"]').length === 2`),
		until(`document.querySelectorAll('#documents tr[data-doc]').length === 2`))
	do(t, ctx, "delete a document",
		chromedp.Click(`//tr[contains(., "ferry.md")]//button`),
		chromedp.Click(`//tr[contains(., "ferry.md")]//button[contains(., "Confirm")]`),
		until(`document.querySelectorAll('#documents tr[data-doc]').length === 1`))
	if n := s.ChunkCount(t, "default", ""); n == 0 {
		t.Error("the other document's chunks went too")
	}
	screenshot(t, ctx, "console-main")
}

func TestConsoleCancelsAJob(t *testing.T) {
	t.Parallel()
	ctx := browser(t, 2*time.Minute)
	// No worker: the job stays queued until the console cancels it.
	s := stack.Start(t, stack.Config(t), false)
	do(t, ctx, "load and drop", chromedp.Navigate(s.URL+"/ui/"), css("#app"),
		dropFile("pending.md", "# Pending\n\nThis file waits for a worker."),
		css(`#jobs li[data-status="queued"] button`))
	if job := textOf(t, ctx, `#jobs li[data-status="queued"]`); !strings.Contains(job, "pending.md") || !strings.Contains(job, "Cancel") {
		t.Errorf("queued job: %q", job)
	}
	screenshot(t, ctx, "console-queued")
	do(t, ctx, "cancel", click(`#jobs li[data-status="queued"] button`), css(`#jobs li[data-status="cancelled"]`))
	if n := eval[int](t, ctx, `document.querySelectorAll('#jobs li[data-status="cancelled"] button').length`); n != 0 {
		t.Error("a cancelled job still offers Cancel")
	}
	screenshot(t, ctx, "console-cancelled")
}

// index puts text into a namespace with the API, as key.
func index(t *testing.T, s *stack.Stack, key, ns, text string) {
	t.Helper()
	body := strings.NewReader(`{"text":` + jsString(text) + `,"kb_name":"` + ns + `","wait":true}`)
	req, _ := http.NewRequest("POST", s.URL+"/tools/rag_index", body)
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("index into %s: %d", ns, resp.StatusCode)
	}
}

// fetchStatus is the status the page's fetch of path gets, with the session cookie.
func fetchStatus(t *testing.T, ctx context.Context, method, path string) int {
	t.Helper()
	return eval[int](t, ctx, `fetch(`+jsString(path)+`, {method: `+jsString(method)+`, headers: {"Content-Type": "application/json"}, `+
		`body: `+jsString(method)+` === "GET" ? undefined : JSON.stringify({query: "x", kb_name: "hr"})}).then(r => r.status)`)
}

func namespacesShown(t *testing.T, ctx context.Context) []string {
	t.Helper()
	return eval[[]string](t, ctx, `[...document.querySelectorAll('#namespaces li')].map(li => li.dataset.ns)`)
}

func TestConsoleLogin(t *testing.T) {
	t.Parallel()
	ctx := browser(t, 3*time.Minute)
	const adminKey, finKey = "console-admin-key-0123", "console-finance-key-0123"
	cfg := stack.Config(t)
	cfg.Auth.Mode = "static-token"
	cfg.Auth.Keys = []config.AuthKey{{Name: "admin", Token: adminKey, Groups: []string{"*"}}, {Name: "fin", Token: finKey, Namespaces: []string{"finance"}}}
	s := stack.Start(t, cfg, true)
	index(t, s, adminKey, "finance", "Quarterly revenue rose nine percent on strong lighthouse-lamp sales.")
	index(t, s, adminKey, "hr", "Salaries are reviewed every spring.")

	do(t, ctx, "load /ui/", chromedp.Navigate(s.URL+"/ui/"), css("#login"))
	do(t, ctx, "wrong key", chromedp.SendKeys(chromedp.CSS("#login-token"), "not-the-key"), click("#login-submit"),
		until(`document.querySelector('#login-error').textContent.includes('login refused')`))
	if msg := textOf(t, ctx, "#login-error"); msg != "login refused: the API key or token is not valid" {
		t.Errorf("refusal message %q", msg)
	}
	if eval[bool](t, ctx, `!document.querySelector('#app').hidden`) || eval[string](t, ctx, `document.querySelector('#login-token').value`) != "" {
		t.Error("the console opened on a wrong key, or kept it in the field")
	}
	screenshot(t, ctx, "console-login-refused")

	// The finance key sees finance only, and no operator UI.
	do(t, ctx, "finance key", chromedp.SendKeys(chromedp.CSS("#login-token"), finKey),
		click("#login-submit"), css("#app"), until(`document.querySelector('#namespaces li[data-ns="finance"]')?.textContent.includes('1 document ·')`))
	if ns := namespacesShown(t, ctx); !slices.Equal(ns, []string{"finance"}) {
		t.Errorf("finance key sees namespaces %v", ns)
	}
	if who := textOf(t, ctx, "#whoami"); !strings.Contains(who, "fin (finance)") {
		t.Errorf("header %q", who)
	}
	if eval[bool](t, ctx, `!document.querySelector('#monitoring-link').hidden`) {
		t.Error("a limited key is offered the operator UI")
	}
	if c := eval[string](t, ctx, `document.cookie`); strings.Contains(c, "ragd_session") || strings.Contains(c, finKey) {
		t.Errorf("the page can read the session cookie: %q", c)
	}
	do(t, ctx, "search as finance", chromedp.SendKeys(chromedp.CSS("#query"), "quarterly revenue"), click("#search-btn"),
		css("#results li[data-chunk]"))
	if r := textOf(t, ctx, "#results"); !strings.Contains(r, "revenue") {
		t.Errorf("finance search: %q", r)
	}
	if code := fetchStatus(t, ctx, "POST", "/tools/rag_search"); code != 403 {
		t.Errorf("finance cookie searching hr: %d", code)
	}
	if code := fetchStatus(t, ctx, "GET", "/monitoring/api/queues"); code != 403 {
		t.Errorf("finance cookie on /monitoring: %d", code)
	}
	screenshot(t, ctx, "console-limited")

	do(t, ctx, "log out", click("#logout"), css("#login"))
	if code := fetchStatus(t, ctx, "GET", "/tools/rag_stats"); code != 401 {
		t.Errorf("after logout: %d", code)
	}
	// The unrestricted key sees both namespaces and opens /monitoring.
	do(t, ctx, "admin key", chromedp.SendKeys(chromedp.CSS("#login-token"), adminKey), click("#login-submit"), css("#app"),
		until(`document.querySelectorAll('#namespaces li').length === 2`))
	if ns := namespacesShown(t, ctx); !slices.Equal(ns, []string{"finance", "hr"}) {
		t.Errorf("admin sees namespaces %v", ns)
	}
	do(t, ctx, "monitoring link", css("#monitoring-link"))
	if code := fetchStatus(t, ctx, "GET", "/monitoring/api/queues"); code != 200 {
		t.Errorf("admin cookie on /monitoring: %d", code)
	}
	do(t, ctx, "open /monitoring", chromedp.Navigate(s.URL+"/monitoring/"), until(`document.body.innerText.includes('Queues')`))
	screenshot(t, ctx, "monitoring")
}

func TestConsolePagesDocuments(t *testing.T) {
	t.Parallel()
	ctx := browser(t, 2*time.Minute)
	root := t.TempDir()
	for i := range 12 {
		name := filepath.Join(root, fmt.Sprintf("note-%02d.md", i))
		if err := os.WriteFile(name, fmt.Appendf(nil, "# Note %d\n\nHarbour note number %d.\n", i, i), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s := stack.Start(t, stack.Config(t, root), true)
	if r := s.Do(t, "POST", "/tools/rag_index_directory", map[string]any{"directory_path": root, "kb_name": "notes", "wait": true}); r.Status != 200 {
		t.Fatalf("index the notes: %d %s", r.Status, r.Body)
	}
	do(t, ctx, "load and pick notes", chromedp.Navigate(s.URL+"/ui/"), css("#app"), click(`#namespaces li[data-ns="notes"]`),
		until(`document.querySelector('#docs-page').textContent === '1–10 of 12'`))
	if n := eval[int](t, ctx, `document.querySelectorAll('#documents tr[data-doc]').length`); n != 10 {
		t.Errorf("first page: %d rows", n)
	}
	if !eval[bool](t, ctx, `document.querySelector('#docs-prev').disabled && !document.querySelector('#docs-next').disabled`) {
		t.Error("first page: Previous enabled or Next disabled")
	}
	do(t, ctx, "next page", click("#docs-next"), until(`document.querySelector('#docs-page').textContent === '11–12 of 12'`))
	if rows := textOf(t, ctx, "#documents"); !strings.Contains(rows, "note-10.md") || !strings.Contains(rows, "note-11.md") || strings.Contains(rows, "note-09.md") {
		t.Errorf("second page: %q", rows)
	}
	if !eval[bool](t, ctx, `!document.querySelector('#docs-prev').disabled && document.querySelector('#docs-next').disabled`) {
		t.Error("last page: Previous disabled or Next enabled")
	}
	screenshot(t, ctx, "console-page-2")
	do(t, ctx, "previous page", click("#docs-prev"), until(`document.querySelector('#docs-page').textContent === '1–10 of 12'`))
}

// A new user who indexed into one namespace sees it when the console
// opens, not the empty default; once default holds
// documents it opens on default again.
func TestConsoleOpensOnANamespaceWithDocuments(t *testing.T) {
	t.Parallel()
	ctx := browser(t, 2*time.Minute)
	root := t.TempDir()
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(root, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// The file's name holds a right-to-left override: the
	// console shows it as ⟨U+202E⟩, never as a disguised name.
	const disguised = "moby\u202Etxt.md"
	write(disguised, "# Moby Dick\n\nCall me Ishmael.\n")
	s := stack.Start(t, stack.Config(t, root), true)
	index := func(file, kb string) {
		t.Helper()
		r := s.Do(t, "POST", "/tools/rag_index", map[string]any{"file_path": filepath.Join(root, file), "kb_name": kb, "wait": true})
		if r.Status != 200 || r.JSON["status"] != "success" {
			t.Fatalf("index %s into %s: %d %s", file, kb, r.Status, r.Body)
		}
	}
	index(disguised, "books")
	// The namespace list renders after the documents: wait for both.
	selected := `((document.querySelector('#namespaces li.selected') || {dataset: {}}).dataset.ns || '')`
	do(t, ctx, "open the console", chromedp.Navigate(s.URL+"/ui/"), css("#app"),
		until(`document.querySelector('#documents').textContent.includes('moby⟨U+202E⟩txt.md') && `+selected+` !== ''`))
	if eval[bool](t, ctx, `/[\u202E]/.test(document.body.textContent)`) {
		t.Error("the page shows the bidi override itself")
	}
	if ns, docsNS := eval[string](t, ctx, selected), textOf(t, ctx, "#docs-ns"); ns != "books" || docsNS != "books" {
		t.Fatalf("opened on %q (documents of %q), want books", ns, docsNS)
	}
	write("memo.md", "# Memo\n\nThe harbour opens at dawn.\n")
	index("memo.md", "default")
	do(t, ctx, "reload", chromedp.Reload(), css("#app"),
		until(`document.querySelector('#documents').textContent.includes('memo.md') && `+selected+` !== ''`))
	if ns := eval[string](t, ctx, selected); ns != "default" {
		t.Fatalf("with documents in default, opened on %q", ns)
	}
}

// The Sources view lists a source added through the API with its state,
// and its "Sync now" starts a sync whose job shows in the jobs list until
// it completes; the source then shows the sync's counts.
func TestConsoleSyncsASource(t *testing.T) {
	t.Parallel()
	ctx := browser(t, 3*time.Minute)
	root := t.TempDir()
	dir := filepath.Join(root, "manuals")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, text := range map[string]string{"pump.md": "# Pump\n\nPrime the pump before the first start.\n",
		"valve.md": "# Valve\n\nThe relief valve opens at six bar.\n"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s := stack.Start(t, stack.Config(t, root), true)
	r := s.Do(t, "POST", "/sources", map[string]any{"kind": "directory", "url": dir, "every": "2h"})
	if r.Status != http.StatusCreated {
		t.Fatalf("POST /sources: %d %s", r.Status, r.Body)
	}
	var src struct {
		ID string `json:"source_id"`
	}
	if err := json.Unmarshal(r.Body, &src); err != nil {
		t.Fatalf("%v: %s", err, r.Body)
	}
	row := `#sources tr[data-source-id="` + src.ID + `"]`
	do(t, ctx, "open the console", chromedp.Navigate(s.URL+"/ui/"), css("#app"), css(row))
	text := textOf(t, ctx, row)
	for _, want := range []string{"directory", dir, "default", "every 2h", "never", "Sync now"} {
		if !strings.Contains(text, want) {
			t.Errorf("source row %q lacks %q", text, want)
		}
	}
	do(t, ctx, "sync now", click(row+" button"), css(`#jobs li[data-status="completed"]`),
		css(row+`[data-outcome="completed"]`))
	if job := textOf(t, ctx, `#jobs li[data-status="completed"]`); !strings.Contains(job, "sync "+dir) {
		t.Errorf("the sync's job: %q", job)
	}
	if last := textOf(t, ctx, row+" .last-sync"); !strings.Contains(last, "completed") || !strings.Contains(last, "+2 ~0 =0 -0") {
		t.Errorf("last sync: %q", last)
	}
	screenshot(t, ctx, "console-sources")
}
