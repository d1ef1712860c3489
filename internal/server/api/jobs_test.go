package api_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"ragd"
	"ragd/internal/library"
	"ragd/internal/platform/config"
	"ragd/internal/testkit/stack"
)

// enqueueText indexes text into ns without waiting and returns the job id.
func enqueueText(t *testing.T, s *stack.Stack, ns, text string) string {
	t.Helper()
	r := s.Do(t, http.MethodPost, "/tools/rag_index", map[string]any{"text": text, "kb_name": ns})
	if r.Status != http.StatusAccepted || str(r.JSON, "job_id") == "" {
		t.Fatalf("index into %s: %d %s", ns, r.Status, r.Body)
	}
	return str(r.JSON, "job_id")
}

func listJobs(t *testing.T, s *stack.Stack, query string) library.JobList {
	t.Helper()
	r := s.Do(t, http.MethodGet, "/jobs"+query, nil)
	if r.Status != http.StatusOK {
		t.Fatalf("GET /jobs%s: %d %s", query, r.Status, r.Body)
	}
	var list library.JobList
	if err := json.Unmarshal(r.Body, &list); err != nil {
		t.Fatal(err)
	}
	if list.Count != len(list.Jobs) {
		t.Fatalf("GET /jobs%s: count %d for %d jobs", query, list.Count, len(list.Jobs))
	}
	return list
}

func jobIDs(jobs []ragd.Job) []string {
	ids := make([]string, len(jobs))
	for i, j := range jobs {
		ids[i] = j.ID
	}
	return ids
}

// Jobs are listed newest first, filtered by namespace and status and paged
// like documents; a cancelled job is listed as such, and finished jobs
// stay listed once a worker has run them.
func TestListJobs(t *testing.T) {
	t.Parallel()
	s := stack.Start(t, stack.Config(t), false) // no worker: every job stays queued
	var ids []string                            // oldest first
	for i, ns := range []string{"alpha", "beta", "alpha", "beta", "alpha"} {
		ids = append(ids, enqueueText(t, s, ns, fmt.Sprintf("Job number %d was filed by the %s team about invoices.", i, ns)))
		time.Sleep(2 * time.Millisecond) // distinct creation times, so the order is known
	}
	if r := s.Do(t, http.MethodPost, "/jobs/"+ids[1]+"/cancel", nil); r.Status != 200 {
		t.Fatalf("cancel: %d %s", r.Status, r.Body)
	}

	all := listJobs(t, s, "")
	newestFirst := slices.Clone(ids)
	slices.Reverse(newestFirst)
	if !reflect.DeepEqual(jobIDs(all.Jobs), newestFirst) || all.Total != 5 || all.NextOffset != nil {
		t.Fatalf("all jobs: %v total %d next %v, want %v", jobIDs(all.Jobs), all.Total, all.NextOffset, newestFirst)
	}
	for _, j := range all.Jobs {
		want := ragd.JobQueued
		if j.ID == ids[1] {
			want = ragd.JobCancelled
		}
		if j.Status != want || j.Type != "ingest:document" || j.CreatedAt.IsZero() || (j.Status == ragd.JobCancelled) != (j.CompletedAt != nil) {
			t.Errorf("job %+v, want status %s", j, want)
		}
	}
	if got := jobIDs(listJobs(t, s, "?status=cancelled").Jobs); !reflect.DeepEqual(got, []string{ids[1]}) {
		t.Errorf("cancelled jobs: %v", got)
	}
	if l := listJobs(t, s, "?status=queued"); l.Total != 4 || slices.Contains(jobIDs(l.Jobs), ids[1]) {
		t.Errorf("queued jobs: %v (total %d)", jobIDs(l.Jobs), l.Total)
	}
	if got := jobIDs(listJobs(t, s, "?kb_name=beta").Jobs); !reflect.DeepEqual(got, []string{ids[3], ids[1]}) {
		t.Errorf("beta's jobs: %v", got)
	}
	if l := listJobs(t, s, "?kb_name=gamma"); l.Total != 0 || l.Jobs == nil {
		t.Errorf("a namespace without jobs: %+v", l)
	}

	// Pages of two: concatenated, the whole list; the last without next_offset.
	var paged []string
	for offset := 0; ; {
		page := listJobs(t, s, fmt.Sprintf("?limit=2&offset=%d", offset))
		if page.Total != 5 || len(page.Jobs) > 2 {
			t.Fatalf("page at %d: %+v", offset, page)
		}
		paged = append(paged, jobIDs(page.Jobs)...)
		if page.NextOffset == nil {
			break
		}
		offset = *page.NextOffset
	}
	if !reflect.DeepEqual(paged, newestFirst) {
		t.Errorf("pages %v, want %v", paged, newestFirst)
	}
	if l := listJobs(t, s, "?offset=9"); len(l.Jobs) != 0 || l.Total != 5 || l.NextOffset != nil {
		t.Errorf("past the end: %+v", l)
	}

	// Once a worker has run them, the four others are completed.
	w := s.NewWorker()
	if err := w.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.Shutdown)
	for _, id := range ids {
		s.WaitJob(t, id, time.Minute)
	}
	if l := listJobs(t, s, "?status=completed"); l.Total != 4 || slices.Contains(jobIDs(l.Jobs), ids[1]) {
		t.Errorf("completed jobs: %v (total %d)", jobIDs(l.Jobs), l.Total)
	}
	if l := listJobs(t, s, "?status=cancelled"); l.Total != 1 {
		t.Errorf("the cancelled job no longer listed: %+v", l)
	}
}

// Bad listing parameters are 422s naming the query parameter.
func TestListJobsRefusesBadParameters(t *testing.T) {
	t.Parallel()
	s := stack.Start(t, stack.Config(t), false)
	for query, field := range map[string]string{
		"?limit=0": "limit", "?limit=1001": "limit", "?limit=ten": "limit", "?offset=-1": "offset",
		"?status=done": "status", "?kb_name=Bad!": "kb_name",
	} {
		r := s.Do(t, http.MethodGet, "/jobs"+query, nil)
		var body struct {
			Detail []ragd.FieldError `json:"detail"`
		}
		_ = json.Unmarshal(r.Body, &body)
		if r.Status != 422 || len(body.Detail) != 1 || !reflect.DeepEqual(body.Detail[0].Loc, []string{"query", field}) || body.Detail[0].Msg == "" {
			t.Errorf("%s: %d %s", query, r.Status, r.Body)
		}
	}
}

// A key limited to some namespaces lists only their jobs and can neither
// see nor cancel another namespace's.
func TestJobsOfLimitedKey(t *testing.T) {
	t.Parallel()
	cfg := stack.Config(t)
	cfg.Auth.Mode = "static-token"
	cfg.Auth.Keys = []config.AuthKey{{Name: "admin", Token: "tok-admin-0123456789", Groups: []string{"*"}},
		{Name: "finance", Token: "tok-finance-0123456789", Namespaces: []string{"finance"}}}
	s := stack.Start(t, cfg, false)
	enqueue := func(token, ns string) string {
		status, _, out := doAuth(t, s, "POST", "/tools/rag_index", token, map[string]any{"text": "Quarterly numbers for " + ns, "kb_name": ns})
		if status != 202 {
			t.Fatalf("index: %d %v", status, out)
		}
		return str(out, "job_id")
	}
	mine, theirs := enqueue("tok-finance-0123456789", "finance"), enqueue("tok-admin-0123456789", "legal")

	status, _, out := doAuth(t, s, "GET", "/jobs", "tok-finance-0123456789", nil)
	if jobs, _ := out["jobs"].([]any); status != 200 || num(out, "total") != 1 || len(jobs) != 1 || str(jobs[0].(map[string]any), "job_id") != mine {
		t.Fatalf("finance's list: %d %v", status, out)
	}
	if status, _, out := doAuth(t, s, "GET", "/jobs", "tok-admin-0123456789", nil); status != 200 || num(out, "total") != 2 {
		t.Fatalf("admin's list: %d %v", status, out)
	}
	if status, _, out := doAuth(t, s, "GET", "/jobs?kb_name=legal", "tok-finance-0123456789", nil); status != 403 {
		t.Fatalf("finance lists legal: %d %v", status, out)
	}
	if status, _, out := doAuth(t, s, "POST", "/jobs/"+theirs+"/cancel", "tok-finance-0123456789", nil); status != 404 {
		t.Fatalf("finance cancels legal's job: %d %v", status, out)
	}
	// Another namespace's job and an unknown one get the same answer, word
	// for word but the id: nothing tells finance that legal's job exists.
	unknown := "0f0e0d0c-0b0a-4908-8706-050403020100"
	for _, route := range []struct{ method, path string }{{"GET", "/jobs/%s"}, {"POST", "/jobs/%s/cancel"}} {
		answer := func(id string) string {
			status, _, out := doAuth(t, s, route.method, fmt.Sprintf(route.path, id), "tok-finance-0123456789", nil)
			raw, _ := json.Marshal(out)
			return fmt.Sprint(status, " ", strings.ReplaceAll(string(raw), id, "ID"))
		}
		if a, b := answer(theirs), answer(unknown); a != b || !strings.HasPrefix(a, "404 ") {
			t.Errorf("%s %s: another namespace's job answers\n%s\nan unknown one\n%s", route.method, route.path, a, b)
		}
	}
	if status, _, out := doAuth(t, s, "POST", "/jobs/"+mine+"/cancel", "tok-finance-0123456789", nil); status != 200 || str(out, "status") != "cancelled" {
		t.Fatalf("finance cancels its job: %d %v", status, out)
	}
	if status, _, out := doAuth(t, s, "GET", "/jobs/"+theirs, "tok-admin-0123456789", nil); status != 200 || str(out, "status") != "queued" {
		t.Fatalf("legal's job after finance's attempt: %d %v", status, out)
	}
	// rag_stats counts a limited key's own jobs: legal's
	// queued job is not finance's business; the operator sees both.
	for key, want := range map[string]string{
		"tok-finance-0123456789": "map[active:0 cancelled:1 failed:0 pending:0]",
		"tok-admin-0123456789":   "map[active:0 cancelled:1 failed:0 pending:1]",
	} {
		status, _, out := doAuth(t, s, "GET", "/tools/rag_stats", key, nil)
		st, _ := out["statistics"].(map[string]any)
		if q := st["queue"]; status != 200 || fmt.Sprint(q) != want {
			t.Errorf("stats of %s: %d queue %v, want %s", key[:len(key)-11], status, q, want)
		}
	}
	// The metrics count every namespace: operators only.
	if status, _, _ := doAuth(t, s, "GET", "/metrics", "tok-finance-0123456789", nil); status != http.StatusForbidden {
		t.Errorf("finance reads /metrics: %d", status)
	}
	if status, _, _ := doAuth(t, s, "GET", "/metrics", "tok-admin-0123456789", nil); status != http.StatusOK {
		t.Errorf("admin reads /metrics: %d", status)
	}
}

// A queued job cancelled never runs: once a worker starts, later jobs
// complete while it stays cancelled, with nothing indexed. Cancelling it
// again, or a completed job, is a conflict; an unknown job is not found.
func TestCancelQueuedJob(t *testing.T) {
	t.Parallel()
	s := stack.Start(t, stack.Config(t), false)
	r := s.Do(t, http.MethodPost, "/tools/rag_index", map[string]any{"text": "Albatrosses glide for hours without a wingbeat.", "kb_name": "birds"})
	id, docID := str(r.JSON, "job_id"), str(r.JSON, "document_id")

	r = s.Do(t, http.MethodPost, "/jobs/"+id+"/cancel", nil)
	if r.Status != 200 || !reflect.DeepEqual(r.JSON, map[string]any{"job_id": id, "status": "cancelled"}) {
		t.Fatalf("cancel: %d %s", r.Status, r.Body)
	}
	if job := decodeJob(t, s.Do(t, http.MethodGet, "/jobs/"+id, nil)); job.Status != ragd.JobCancelled || job.CompletedAt == nil || job.Namespace != "birds" {
		t.Fatalf("cancelled job: %+v", job)
	}
	if r := s.Do(t, http.MethodPost, "/jobs/"+id+"/cancel", nil); r.Status != 409 || str(r.JSON, "detail") == "" {
		t.Fatalf("cancel twice: %d %s", r.Status, r.Body)
	}
	if r := s.Do(t, http.MethodPost, "/jobs/no-such-job/cancel", nil); r.Status != 404 {
		t.Fatalf("cancel an unknown job: %d %s", r.Status, r.Body)
	}

	w := s.NewWorker()
	if err := w.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.Shutdown)
	later := enqueueText(t, s, "birds", "Puffins nest in burrows on sea cliffs.")
	if job := s.WaitJob(t, later, time.Minute); job.Status != ragd.JobCompleted {
		t.Fatalf("job after the cancelled one: %+v", job)
	}
	if job := decodeJob(t, s.Do(t, http.MethodGet, "/jobs/"+id, nil)); job.Status != ragd.JobCancelled {
		t.Fatalf("cancelled job ran: %+v", job)
	}
	if r := s.Do(t, http.MethodGet, "/documents/"+docID, nil); r.Status != 404 || s.ChunkCount(t, "birds", docID) != 0 {
		t.Fatalf("the cancelled job's document: %d %s, %d chunks", r.Status, r.Body, s.ChunkCount(t, "birds", docID))
	}
	if r := s.Do(t, http.MethodPost, "/jobs/"+later+"/cancel", nil); r.Status != 409 || str(r.JSON, "detail") != "job "+later+" is already completed" {
		t.Fatalf("cancel a completed job: %d %s", r.Status, r.Body)
	}
	stats := s.Do(t, http.MethodGet, "/tools/rag_stats", nil)
	if q, _ := stats.JSON["statistics"].(map[string]any)["queue"].(map[string]any); num(q, "cancelled") != 1 || num(q, "failed") != 0 {
		t.Fatalf("stats: %s", stats.Body)
	}
	if m := s.Do(t, http.MethodGet, "/metrics", nil); !strings.Contains(string(m.Body), "\nragd_jobs_cancelled 1\n") {
		t.Fatalf("metrics lack ragd_jobs_cancelled 1")
	}
}

// A request waiting for its job (wait:true) answers 409 when the job is
// cancelled meanwhile.
func TestWaitingRequestSeesItsJobCancelled(t *testing.T) {
	t.Parallel()
	s := stack.Start(t, stack.Config(t), false)
	type reply struct {
		status int
		body   map[string]any
		err    error
	}
	answer := make(chan reply, 1)
	go func() { // not s.Do, which may call t.Fatal, off the test's goroutine
		resp, err := http.Post(s.URL+"/tools/rag_index", "application/json",
			strings.NewReader(`{"text":"Gannets dive from thirty metres.","kb_name":"seabirds","wait":true}`))
		if err != nil {
			answer <- reply{err: err}
			return
		}
		defer resp.Body.Close()
		var body map[string]any
		err = json.NewDecoder(resp.Body).Decode(&body)
		answer <- reply{resp.StatusCode, body, err}
	}()
	deadline := time.Now().Add(time.Minute)
	var list library.JobList
	for list = listJobs(t, s, "?kb_name=seabirds"); len(list.Jobs) == 0; list = listJobs(t, s, "?kb_name=seabirds") {
		if time.Now().After(deadline) {
			t.Fatal("the waiting request's job is not listed")
		}
		time.Sleep(10 * time.Millisecond)
	}
	id := list.Jobs[0].ID
	if r := s.Do(t, http.MethodPost, "/jobs/"+id+"/cancel", nil); r.Status != 200 {
		t.Fatalf("cancel: %d %s", r.Status, r.Body)
	}
	if r := <-answer; r.err != nil || r.status != http.StatusConflict || str(r.body, "detail") != "job "+id+" was cancelled" {
		t.Fatalf("waiting request: %d %v %v", r.status, r.body, r.err)
	}
}

// A directory job's files come one page at a time when asked (limit,
// offset; children_next_offset points on), its progress counting every
// file; a bad page is a 422.
func TestDirectoryJobChildrenPage(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	for i := range 5 {
		writeFile(t, filepath.Join(root, fmt.Sprintf("f%d.md", i)), fmt.Sprintf("# File %d\n\nHarbour note number %d.", i, i))
	}
	s := stack.Start(t, stack.Config(t, root), true)
	r := s.Do(t, http.MethodPost, "/tools/rag_index_directory", map[string]any{"directory_path": root, "kb_name": "paged", "wait": true})
	id, _ := r.JSON["job_id"].(string)
	if r.Status != http.StatusOK || id == "" {
		t.Fatalf("directory job: %d %s", r.Status, r.Body)
	}
	for _, c := range []struct {
		query string
		n     int
		next  any
	}{{"", 5, nil}, {"?limit=2", 2, 2.0}, {"?limit=2&offset=2", 2, 4.0}, {"?limit=2&offset=4", 1, nil}, {"?offset=9&limit=3", 0, nil}} {
		r := s.Do(t, http.MethodGet, "/jobs/"+id+c.query, nil)
		children, _ := r.JSON["children"].([]any)
		progress, _ := r.JSON["progress"].(map[string]any)
		if r.Status != http.StatusOK || len(children) != c.n || r.JSON["children_next_offset"] != c.next || progress["total"] != 5.0 {
			t.Errorf("GET /jobs/%s%s: %d, %d children, next %v, progress %v", id, c.query, r.Status, len(children), r.JSON["children_next_offset"], progress)
		}
	}
	for _, q := range []string{"?limit=0", "?limit=1001", "?offset=-1", "?limit=x"} {
		if r := s.Do(t, http.MethodGet, "/jobs/"+id+q, nil); r.Status != http.StatusUnprocessableEntity {
			t.Errorf("GET /jobs/%s%s: %d %s", id, q, r.Status, r.Body)
		}
	}
}
