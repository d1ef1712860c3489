package access_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"ragd/internal/platform/config"
	"ragd/internal/testkit/collector"
	"ragd/internal/testkit/stack"
	"ragd/internal/testkit/standin"
)

// teamEngToken is limited to the namespace "team" and holds group eng:
// the documents of ns, eng's included, are not its to see or change.
const teamEngToken = "tok-teameng-0123456789"

// unknownID is a document id no namespace holds.
const unknownID = "0123456789abcdef0123456789abcdef"

// hostileConfig is writeConfig with teamEngToken's key besides.
func hostileConfig(t *testing.T) config.Config {
	cfg := writeConfig(t)
	cfg.Auth.Keys = append(cfg.Auth.Keys, config.AuthKey{Name: "teameng", Token: teamEngToken, Namespaces: []string{"team"}, Groups: []string{"eng"}})
	return cfg
}

// A 404 for a document the caller may not reach reads exactly as an
// unknown id's, so a PATCH is no oracle of what exists: hidden by its
// access, or in a namespace the key may not use. Naming such a namespace
// is 403 whether the id exists there or not.
func TestPatchIsNoExistenceOracle(t *testing.T) {
	t.Parallel()
	k := startWith(t, hostileConfig(t))
	patch := func(token, id, query string) (int, string) {
		t.Helper()
		r := call(t, k.s, token, http.MethodPatch, "/documents/"+id+query, map[string]any{"access": []string{}})
		return r.Status, strings.ReplaceAll(string(r.Body), id, "ID")
	}
	for _, c := range []struct {
		token, doc, query string
	}{
		{engToken, "fin", ""}, // hidden by its access
		{engToken, "fin", "?kb_name=" + ns},
		{noneToken, "eng", ""},
		{teamEngToken, "eng", ""}, // shared with its group, in a namespace it may not use
		{teamEngToken, "all", ""}, // open, ditto
		{teamEngToken, "eng", "?kb_name=team"},
	} {
		st, body := patch(c.token, k.ids[c.doc], c.query)
		wantSt, want := patch(c.token, unknownID, c.query)
		if st != http.StatusNotFound || wantSt != http.StatusNotFound || body != want {
			t.Errorf("PATCH of %s as %s%s: %d %s; an unknown id's: %d %s", c.doc, tokenName(c.token), c.query, st, body, wantSt, want)
		}
	}
	st, body := patch(teamEngToken, k.ids["eng"], "?kb_name="+ns)
	wantSt, want := patch(teamEngToken, unknownID, "?kb_name="+ns)
	if st != http.StatusForbidden || body != want || !strings.Contains(body, ns) {
		t.Errorf("PATCH naming namespace %s as teameng: %d %s; an unknown id's: %d %s", ns, st, body, wantSt, want)
	}
	if r := k.s.DoAs(t, "", http.MethodPatch, "/documents/"+k.ids["eng"], map[string]any{"access": []string{}}); r.Status != http.StatusUnauthorized {
		t.Errorf("PATCH without a key: %d %s", r.Status, r.Body)
	}
	if got := accessOf(t, k, k.ids["eng"]); !slices.Equal(got, []string{"eng"}) {
		t.Errorf("after the refused PATCHes eng's document has access %v", got)
	}
}

// Group names a PATCH may not give: invisible or direction-changing
// characters (which would make two names look alike), and more than 100
// groups; a name in another script is a name like any other, and "*"
// opens the document.
func TestPatchGroupNames(t *testing.T) {
	t.Parallel()
	k := start(t)
	eng := k.ids["eng"]
	many := make([]string, 101)
	for i := range many {
		many[i] = "g" + strings.Repeat("x", i)
	}
	for name, c := range map[string]struct {
		access []string
		want   string
	}{
		"zero-width space":   {[]string{"eng\u200b"}, "holds a comma, a space or a control character"},
		"right-to-left mark": {[]string{"\u202eeng"}, "holds a comma, a space or a control character"},
		"NUL":                {[]string{"eng\x00"}, "holds a comma, a space or a control character"},
		"newline":            {[]string{"eng\nfin"}, "holds a comma, a space or a control character"},
		"empty name":         {[]string{""}, "a group name is 1 to 128 characters"},
		"101 groups":         {many, "access lists 101 groups; at most 100"},
	} {
		r := call(t, k.s, engToken, http.MethodPatch, "/documents/"+eng, map[string]any{"access": c.access})
		if r.Status != http.StatusUnprocessableEntity || !strings.Contains(string(r.Body), c.want) {
			t.Errorf("PATCH with %s: %d %.300s, want 422 %q", name, r.Status, r.Body, c.want)
		}
	}
	if got := accessOf(t, k, eng); !slices.Equal(got, []string{"eng"}) {
		t.Fatalf("after the refused PATCHes: access %v", got)
	}
	r := call(t, k.s, engToken, http.MethodPatch, "/documents/"+eng, map[string]any{"access": []string{"eng", "ingénierie"}})
	if r.Status != http.StatusOK || !slices.Equal(accessOf(t, k, eng), []string{"eng", "ingénierie"}) {
		t.Fatalf("PATCH with a name in another script: %d %s", r.Status, r.Body)
	}
	r = call(t, k.s, engToken, http.MethodPatch, "/documents/"+eng, map[string]any{"access": []string{"eng", "*"}})
	if r.Status != http.StatusOK || accessOf(t, k, eng) != nil || !slices.Contains(searchNames(t, k, noneToken, ns), "eng") {
		t.Fatalf("PATCH with *: %d %s, access %v", r.Status, r.Body, accessOf(t, k, eng))
	}
}

// A PATCH is allowed against the document it read, then waits for the
// document's lock: when another writer changes the access meanwhile (here
// the test, holding the lock, shares it with fin only), the PATCH is
// asked again of what is there once it holds the lock. Before, eng's
// PATCH opened a document the operator had just taken from eng.
func TestPatchRecheckedUnderTheLock(t *testing.T) {
	t.Parallel()
	k := start(t)
	ctx := context.Background()
	eng := k.ids["eng"]
	lib := k.s.Library
	lease, err := lib.Versions.Lock(ctx, ns, eng)
	if err != nil {
		t.Fatal(err)
	}
	answer := make(chan [2]string, 1)
	go func() {
		r := call(t, k.s, engToken, http.MethodPatch, "/documents/"+eng, map[string]any{"access": []string{}})
		answer <- [2]string{http.StatusText(r.Status), string(r.Body)}
	}()
	// Not an assertion: time for the PATCH to read the document (still
	// eng's) and wait for the lock, so the change below comes in between.
	time.Sleep(500 * time.Millisecond)
	doc, err := lib.Registry.Get(ctx, ns, eng)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := lib.Versions.Share(ctx, lease, *doc, []string{"fin"}); err != nil {
		t.Fatal(err)
	}
	lease.Release()
	got := <-answer
	if got[0] != http.StatusText(http.StatusNotFound) || !strings.Contains(got[1], "document "+eng+" not found") {
		t.Errorf("eng's PATCH of a document shared meanwhile with fin alone: %s %s", got[0], got[1])
	}
	if acc := accessOf(t, k, eng); !slices.Equal(acc, []string{"fin"}) {
		t.Fatalf("after eng's PATCH raced the change to fin: access %v", acc)
	}
}

// The embedder switch is an operator's: a key without one, another key
// and an operator limited to a namespace are refused before anything is
// read, saying why; the operator's hostile bodies are refused naming
// what is wrong, quoting at most 64 characters, and a name is only ever
// looked up among the config's embedders (a URL is no more than an
// unknown name: nothing is fetched).
func TestSwitchRefusals(t *testing.T) {
	t.Parallel()
	k := startWith(t, hostileConfig(t))
	post := func(token, body string) (int, string) {
		t.Helper()
		r := k.s.DoRaw(t, http.MethodPost, "/embedder/switch", "application/json", token, bytes.NewReader([]byte(body)))
		return r.Status, string(r.Body)
	}
	for _, c := range []struct {
		token, want string
		status      int
	}{
		{"", "", http.StatusUnauthorized},
		{engToken, `switching the embedder needs an operator: a principal in group \"*\"`, http.StatusForbidden},
		{teamEngToken, `switching the embedder needs an operator: a principal in group \"*\"`, http.StatusForbidden},
		{nsOpsToken, `\"nsops\" is limited to namespaces; switching the embedder needs an operator limited to none`, http.StatusForbidden},
	} {
		for _, path := range []string{"/embedder/switch", "/embedder"} {
			method := http.MethodPost
			if path == "/embedder" {
				method = http.MethodGet
			}
			r := k.s.DoRaw(t, method, path, "application/json", c.token, bytes.NewReader([]byte(`{"to":"default"}`)))
			want := c.want
			if path == "/embedder" {
				want = strings.Replace(want, "switching the embedder", "reading the embedder and its switch", 1)
			}
			if r.Status != c.status || !strings.Contains(string(r.Body), want) {
				t.Errorf("%s %s as %q: %d %s, want %d %s", method, path, tokenName(c.token), r.Status, r.Body, c.status, want)
			}
		}
	}
	long := strings.Repeat("n", 10<<10)
	for name, c := range map[string]struct {
		body, want string
		status     int
	}{
		"unknown field":      {`{"to":"alt","from":"default"}`, `unknown field \"from\"`, http.StatusUnprocessableEntity},
		"empty":              {`{"to":" "}`, "to names the embedder to switch to", http.StatusUnprocessableEntity},
		"10 KB name":         {`{"to":"` + long + `"}`, `no embedder \"` + long[:64] + `\"… (10240 bytes)`, http.StatusNotFound},
		"control characters": {`{"to":"x\r\nSet-Cookie: a=b"}`, `no embedder \"x\\r\\nSet-Cookie: a=b\"`, http.StatusNotFound},
		"internal URL":       {`{"to":"http://169.254.169.254/latest/meta-data"}`, `no embedder \"http://169.254.169.254/latest/meta-data\": the config names default`, http.StatusNotFound},
		"the live one":       {`{"to":"default"}`, `embedder \"default\" is live already`, http.StatusConflict},
	} {
		st, body := post(opsToken, c.body)
		if st != c.status || !strings.Contains(body, c.want) || len(body) > 1000 {
			t.Errorf("switch with %s: %d %.400s, want %d %q", name, st, body, c.status, c.want)
		}
	}
	if r := call(t, k.s, opsToken, http.MethodGet, "/embedder", nil); r.Status != http.StatusOK || !strings.Contains(string(r.Body), `"switch":null`) {
		t.Fatalf("GET /embedder as the operator after the refused switches: %d %s", r.Status, r.Body)
	}
}

// A text job's text is held in Redis apart from its task, and no route
// that shows the job shows it: not its status (REST or MCP), not the
// listing, to its own asker as to the operator.
func TestJobShowsNoText(t *testing.T) {
	t.Parallel()
	k := start(t)
	secret := "Harbour lighthouse report: the vault code is zebra-quince-4471."
	r := call(t, k.s, engToken, http.MethodPost, "/tools/rag_index", map[string]any{"text": secret, "kb_name": ns, "access": []string{"eng"}})
	if r.Status != http.StatusAccepted {
		t.Fatalf("eng's index: %d %s", r.Status, r.Body)
	}
	id, _ := r.JSON["job_id"].(string)
	if strings.Contains(string(r.Body), "zebra") {
		t.Fatalf("the index answer shows the text: %s", r.Body)
	}
	waitJob(t, k, id)
	for _, token := range []string{engToken, opsToken} {
		for _, path := range []string{"/jobs/" + id, "/jobs?kb_name=" + ns} {
			r := call(t, k.s, token, http.MethodGet, path, nil)
			if r.Status != http.StatusOK || !strings.Contains(string(r.Body), id) || strings.Contains(string(r.Body), "zebra") {
				t.Errorf("GET %s as %s: %d %.500s", path, keyName[token], r.Status, r.Body)
			}
		}
		out := tool(t, connect(t, k, token), "core_job_status", map[string]any{"job_id": id})
		if s := mustJSON(out); !strings.Contains(s, id) || strings.Contains(s, "zebra") {
			t.Errorf("core_job_status as %s: %.500s", keyName[token], s)
		}
	}
}

// indexTraced sends an inline text to index as token with a traceparent
// header of the caller's choosing, and returns its job id.
func indexTraced(t *testing.T, k *kb, token, traceparent, text string) string {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, k.s.URL+"/tools/rag_index",
		strings.NewReader(mustJSON(map[string]any{"text": text, "kb_name": ns, "access": []string{keyName[token]}})))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("traceparent", traceparent)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out map[string]any
	_ = json.NewDecoder(resp.Body).Decode(&out)
	id, _ := out["job_id"].(string)
	if resp.StatusCode != http.StatusAccepted || id == "" || resp.Header.Get("traceparent") != "" {
		t.Fatalf("index as %s with traceparent %.60s: %d %v, traceparent answered %q", keyName[token], traceparent, resp.StatusCode, out, resp.Header.Get("traceparent"))
	}
	return id
}

// A trace id is the caller's to choose (its request's trace goes on), but
// it is no handle on anything: two keys sending the same one each get
// their own job, neither reads or lists the other's through it, and a
// malformed or huge traceparent is dropped (a new trace) rather than
// stored or echoed.
func TestTraceHeadersAreNoHandle(t *testing.T) {
	t.Parallel()
	cfg := authConfig(t)
	cfg.Telemetry.OTLPEndpoint = collector.Start(t).URL()
	k := startWith(t, cfg)
	const chosen = "4bf92f3577b34da6a3ce929d0e0e4736"
	parent := "00-" + chosen + "-00f067aa0ba902b7-01"
	finJob := indexTraced(t, k, finToken, parent, "Harbour lighthouse report: the fin ledger for the trace probe.")
	engJob := indexTraced(t, k, engToken, parent, "Harbour lighthouse report: the eng log for the trace probe.")
	for _, id := range []string{finJob, engJob} {
		waitJob(t, k, id)
		if r := call(t, k.s, opsToken, http.MethodGet, "/jobs/"+id, nil); r.JSON["trace_id"] != chosen {
			t.Fatalf("job %s: trace_id %v, want the caller's %s", id, r.JSON["trace_id"], chosen)
		}
	}
	for _, path := range []string{"/jobs/" + finJob, "/jobs/" + chosen, "/jobs/" + parent} {
		if r := call(t, k.s, engToken, http.MethodGet, path, nil); r.Status != http.StatusNotFound {
			t.Errorf("GET %s as eng: %d %.300s", path, r.Status, r.Body)
		}
	}
	if r := call(t, k.s, engToken, http.MethodGet, "/jobs?kb_name="+ns, nil); strings.Contains(string(r.Body), finJob) || !strings.Contains(string(r.Body), engJob) {
		t.Errorf("eng's jobs, after both sent trace %s: %.500s", chosen, r.Body)
	}
	for name, bad := range map[string]string{
		"10 KB":          "00-" + chosen + "-00f067aa0ba902b7-01" + strings.Repeat("a", 10<<10),
		"not hex":        "00-" + strings.Repeat("z", 32) + "-00f067aa0ba902b7-01",
		"zero trace id":  "00-" + strings.Repeat("0", 32) + "-00f067aa0ba902b7-01",
		"version ff":     "ff-" + chosen + "-00f067aa0ba902b7-01",
		"script in it":   "00-<script>alert(1)</script>-00f067aa0ba902b7-01",
		"log line in it": "00-" + chosen + "-00f067aa0ba902b7-01\tlevel=ERROR msg=forged",
	} {
		id := indexTraced(t, k, engToken, bad, "Harbour lighthouse report: the eng probe "+name+".")
		r := call(t, k.s, opsToken, http.MethodGet, "/jobs/"+id, nil)
		got, _ := r.JSON["trace_id"].(string)
		if len(got) != 32 || strings.Trim(got, "0123456789abcdef") != "" || got == chosen || got == strings.Repeat("0", 32) {
			t.Errorf("job sent with a %s traceparent: trace_id %q", name, got)
		}
	}
}

// A switch is the operator's from start to end: of several started at
// once exactly one runs (the others 409 naming it); no other key reads,
// lists or cancels its job, or reads its progress; the operator cancels
// it once, and a second cancel is 409.
func TestSwitchJobIsTheOperators(t *testing.T) {
	t.Parallel()
	cfg := hostileConfig(t)
	alt := standin.NewEmbeddings(t, "alt-embed", 16)
	cfg.Embedders = map[string]config.Embed{"alt": {Provider: "openai", BaseURL: alt.URL, Model: alt.Model, BatchSize: 2}}
	s := stack.Start(t, cfg, false) // no worker: the switch stays queued
	const racers = 4
	answers := make(chan stack.Response, racers)
	var wg sync.WaitGroup
	for range racers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			answers <- s.DoAs(t, opsToken, http.MethodPost, "/embedder/switch", map[string]any{"to": "alt"})
		}()
	}
	wg.Wait()
	close(answers)
	var job string
	var conflicts []string
	for r := range answers {
		switch r.Status {
		case http.StatusAccepted:
			if job != "" {
				t.Fatalf("two switches started: %s and %s", job, r.JSON["job_id"])
			}
			job, _ = r.JSON["job_id"].(string)
		case http.StatusConflict:
			conflicts = append(conflicts, string(r.Body))
		default:
			t.Fatalf("a switch started with others: %d %s", r.Status, r.Body)
		}
	}
	if job == "" || len(conflicts) != racers-1 {
		t.Fatalf("%d switches started at once: job %q, conflicts %v", racers, job, conflicts)
	}
	for _, c := range conflicts {
		if !strings.Contains(c, `a switch to \"alt\" is under way (job `+job+`)`) {
			t.Errorf("a conflicting switch: %s", c)
		}
	}
	for _, token := range []string{engToken, noneToken, nsOpsToken, teamEngToken} {
		for _, rq := range []struct{ method, path string }{
			{http.MethodGet, "/jobs/" + job}, {http.MethodPost, "/jobs/" + job + "/cancel"},
		} {
			r := s.DoAs(t, token, rq.method, rq.path, nil)
			want := s.DoAs(t, token, rq.method, strings.Replace(rq.path, job, "00000000-0000-0000-0000-000000000000", 1), nil)
			if r.Status != http.StatusNotFound || strings.ReplaceAll(string(r.Body), job, "ID") != strings.ReplaceAll(string(want.Body), "00000000-0000-0000-0000-000000000000", "ID") {
				t.Errorf("%s %s as %s: %d %s; an unknown job's: %s", rq.method, rq.path, tokenName(token), r.Status, r.Body, want.Body)
			}
		}
		if r := s.DoAs(t, token, http.MethodGet, "/jobs", nil); strings.Contains(string(r.Body), job) {
			t.Errorf("GET /jobs as %s lists the switch: %.300s", tokenName(token), r.Body)
		}
		if r := s.DoAs(t, token, http.MethodGet, "/embedder", nil); r.Status != http.StatusForbidden || strings.Contains(string(r.Body), job) {
			t.Errorf("GET /embedder as %s during the switch: %d %.300s", tokenName(token), r.Status, r.Body)
		}
	}
	if r := s.DoAs(t, opsToken, http.MethodGet, "/embedder", nil); r.Status != http.StatusOK || !strings.Contains(string(r.Body), job) {
		t.Fatalf("GET /embedder as the operator during the switch: %d %s", r.Status, r.Body)
	}
	if r := s.DoAs(t, opsToken, http.MethodPost, "/jobs/"+job+"/cancel", nil); r.Status != http.StatusOK {
		t.Fatalf("the operator cancelling the switch: %d %s", r.Status, r.Body)
	}
	if r := s.DoAs(t, opsToken, http.MethodPost, "/jobs/"+job+"/cancel", nil); r.Status != http.StatusConflict {
		t.Fatalf("cancelling the cancelled switch again: %d %s", r.Status, r.Body)
	}
}
