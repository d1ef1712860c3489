// Package sources_test syncs git sources through a whole ragd (REST, the
// queue, the worker, Redis and Weaviate) from real Git servers the tests
// start: `git daemon` and `git http-backend` (internal/testkit/gitserver).
package sources_test

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"ragd"
	"ragd/internal/jobs/worker"
	"ragd/internal/library"
	"ragd/internal/platform/config"
	"ragd/internal/testkit/gitserver"
	"ragd/internal/testkit/stack"
)

// start is a ragd with a worker that may fetch from loopback servers and
// retries nothing (a failed sync fails at once).
func start(t *testing.T, roots ...string) *stack.Stack {
	t.Helper()
	cfg := stack.Config(t, roots...)
	cfg.Ingest.AllowPrivateURLs = true
	cfg.Worker.MaxRetries = 0
	return start2(t, cfg)
}

func start2(t *testing.T, cfg config.Config) *stack.Stack { return stack.Start(t, cfg, true) }

// addSource adds a git source and returns its id.
func addSource(t *testing.T, s *stack.Stack, body map[string]any) string {
	t.Helper()
	return addKind(t, s, ragd.SourceGit, body)
}

// addKind adds a source of kind and returns its id.
func addKind(t *testing.T, s *stack.Stack, kind ragd.SourceKind, body map[string]any) string {
	t.Helper()
	body["kind"] = kind
	r := s.Do(t, "POST", "/sources", body)
	if r.Status != http.StatusCreated {
		t.Fatalf("POST /sources: %d %s", r.Status, r.Body)
	}
	var src ragd.Source
	decode(t, r.Body, &src)
	return src.ID
}

// sync syncs the source and waits for its job, whose result it returns.
func sync(t *testing.T, s *stack.Stack, id string, body map[string]any) (ragd.Job, ragd.DirectoryResult) {
	t.Helper()
	if body == nil {
		body = map[string]any{}
	}
	r := s.Do(t, "POST", "/sources/"+id+"/sync", body)
	if r.Status != http.StatusAccepted {
		t.Fatalf("sync: %d %s", r.Status, r.Body)
	}
	var e library.Enqueued
	decode(t, r.Body, &e)
	job := s.WaitJob(t, *e.JobID, 60*time.Second)
	var res ragd.DirectoryResult
	if job.Result != nil {
		decode(t, job.Result, &res)
	}
	return job, res
}

// paths are the file paths of the namespace's documents from git sources.
func paths(t *testing.T, s *stack.Stack) []string {
	t.Helper()
	return items(t, s, ragd.SourceGit)
}

// items are the items (paths, page URLs, keys) of the default
// namespace's documents from sources of kind, sorted.
func items(t *testing.T, s *stack.Stack, kind ragd.SourceKind) []string {
	t.Helper()
	r := s.Do(t, "GET", "/documents?limit=1000", nil)
	var list struct {
		Documents []ragd.Document `json:"documents"`
	}
	decode(t, r.Body, &list)
	out := []string{}
	for _, d := range list.Documents {
		if p, ok := ragd.SourceItem(kind, d.Source); ok {
			out = append(out, p)
		}
	}
	slices.Sort(out)
	return out
}

func decode(t testing.TB, b []byte, v any) {
	t.Helper()
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%v: %s", err, b)
	}
}

func equal(t *testing.T, what string, got, want []string) {
	t.Helper()
	if !slices.Equal(got, want) {
		t.Fatalf("%s: got %v, want %v", what, got, want)
	}
}

// Two syncs over smart HTTP: the second reads only what the commit
// changed, and the documents are exactly the tree's files in scope —
// the repository's .gitignore and the source's exclude obeyed, a file
// of no supported type left out.
func TestGitSyncOverHTTPReflectsEachChange(t *testing.T) {
	t.Parallel()
	repo := gitserver.NewRepo(t, "handbook.git")
	repo.Write("a.md", "# Anchors\n\nThe anchor chain is inspected every spring.\n")
	repo.Write("b.md", "# Buoys\n\nRed buoys mark the port side of the channel.\n")
	repo.Write("c.md", "# Charts\n\nCharts are corrected from the weekly notices.\n")
	repo.Write("d.txt", "Deck log: entries are made every watch.\n")
	repo.Write("docs/e.md", "# Engines\n\nThe engine room keeps its own log.\n")
	repo.Write("logo.png", "not an image we read")
	repo.Write(".gitignore", "secret/\n")
	repo.Write("drafts/x.md", "# Draft\n\nNot ready.\n")
	repo.Commit("first")
	repo.Write("secret/s.md", "# Secret\n\nCommitted past the ignore rule.\n")
	repo.Git("add", "-f", "secret/s.md")
	first := repo.Commit("a file the ignore rules leave out")
	url := gitserver.HTTP(t, repo)

	s := start(t)
	id := addSource(t, s, map[string]any{"url": url, "exclude": []string{"drafts/"}, "tags": []string{"handbook"}})
	job, res := sync(t, s, id, nil)
	if job.Status != ragd.JobCompleted {
		t.Fatalf("first sync: %s %s", job.Status, job.Error)
	}
	equal(t, "after the first sync", paths(t, s), []string{"a.md", "b.md", "c.md", "d.txt", "docs/e.md"})
	if res.FilesAdded != 5 || res.Commit != first || s.Git.Reads.Load() != 5 {
		t.Fatalf("first sync: %+v, %d reads", res, s.Git.Reads.Load())
	}

	repo.Write("a.md", "# Anchors\n\nThe anchor chain is inspected every autumn now.\n")
	repo.Git("rm", "-q", "b.md")
	repo.Git("mv", "c.md", "sea-charts.md")
	repo.Write("f.md", "# Flags\n\nThe ensign is hoisted at eight.\n")
	second := repo.Commit("change, delete, rename, add")
	job, res = sync(t, s, id, nil)
	if job.Status != ragd.JobCompleted {
		t.Fatalf("second sync: %s %s", job.Status, job.Error)
	}
	equal(t, "after the second sync", paths(t, s), []string{"a.md", "d.txt", "docs/e.md", "f.md", "sea-charts.md"})
	if res.FilesAdded != 2 || res.FilesMoved != 1 || res.FilesChanged != 1 || res.FilesUnchanged != 2 || res.DocumentsDeleted != 1 || res.Commit != second {
		t.Fatalf("second sync: %+v", res)
	}
	// The renamed file took over its document: its chunks' vectors
	// carried over, not embedded again, and the old name's document gone.
	var moved ragd.DocumentResult
	childJob(t, s, worker.SyncChildJobID(job.ID, "sea-charts.md"), &moved)
	if moved.MovedFrom != ragd.DocumentID("default", ragd.GitURI(url, "", "c.md")) || moved.VectorsCarried == 0 || moved.VectorsCarried != moved.ChunksIndexed {
		t.Fatalf("the renamed file's job: %+v", moved)
	}
	if n := s.Git.Reads.Load(); n != 5+3 {
		t.Fatalf("the second sync read %d blobs, want the 3 the commit added or changed", n-5)
	}
	doc := document(t, s, ragd.GitURI(url, "", "a.md"))
	if doc.Commit != second || doc.WebURL != strings.TrimSuffix(url, ".git")+"/blob/"+second+"/a.md" || !slices.Equal(doc.Tags, []string{"handbook"}) {
		t.Fatalf("a.md: %+v", doc)
	}
	r := s.Do(t, "GET", "/sources/"+id, nil)
	var src ragd.Source
	decode(t, r.Body, &src)
	if src.Commit != second || src.LastSync == nil || src.LastSync.Outcome != string(ragd.JobCompleted) || src.LastSync.Deleted != 1 || src.LastSync.Moved != 1 {
		t.Fatalf("GET /sources/%s: %s", id, r.Body)
	}
}

// childJob reads a finished job's result into out.
func childJob(t *testing.T, s *stack.Stack, id string, out any) {
	t.Helper()
	r := s.Do(t, "GET", "/jobs/"+id, nil)
	var j ragd.Job
	decode(t, r.Body, &j)
	if r.Status != http.StatusOK || j.Status != ragd.JobCompleted {
		t.Fatalf("job %s: %d %s", id, r.Status, r.Body)
	}
	decode(t, j.Result, out)
}

func document(t *testing.T, s *stack.Stack, source string) ragd.Document {
	t.Helper()
	r := s.Do(t, "GET", "/documents/"+ragd.DocumentID("default", source)+"?kb_name=default", nil)
	if r.Status != http.StatusOK {
		t.Fatalf("document %s: %d %s", source, r.Status, r.Body)
	}
	var d ragd.Document
	decode(t, r.Body, &d)
	return d
}

// A force push that drops the last synced commit fails the sync over
// git://, deleting nothing; force then compares every file.
func TestForcePushFailsTheSyncAndPrunesNothing(t *testing.T) {
	t.Parallel()
	repo := gitserver.NewRepo(t, "runbooks")
	repo.Write("a.md", "# Alerts\n\nPage the on-call engineer.\n")
	repo.Write("b.md", "# Backups\n\nBackups run nightly.\n")
	repo.Commit("first")
	url, _ := gitserver.Daemon(t, repo)
	s := start(t)
	id := addSource(t, s, map[string]any{"url": url, "ref": "main"})
	if job, _ := sync(t, s, id, nil); job.Status != ragd.JobCompleted {
		t.Fatalf("first sync: %s %s", job.Status, job.Error)
	}
	repo.Git("rm", "-q", "b.md")
	repo.Git("commit", "-q", "--amend", "-m", "history rewritten")
	job, _ := sync(t, s, id, nil)
	if job.Status != ragd.JobFailed || !strings.Contains(job.Error, "force-pushed") {
		t.Fatalf("sync after a force push: %s %q", job.Status, job.Error)
	}
	equal(t, "after the refused sync", paths(t, s), []string{"a.md", "b.md"})
	job, res := sync(t, s, id, map[string]any{"force": true})
	if job.Status != ragd.JobCompleted || res.DocumentsDeleted != 1 {
		t.Fatalf("forced sync: %s %q %+v", job.Status, job.Error, res)
	}
	equal(t, "after the forced sync", paths(t, s), []string{"a.md"})
}

// A server that cannot be reached fails the sync; nothing is deleted.
func TestUnreachableServerPrunesNothing(t *testing.T) {
	t.Parallel()
	repo := gitserver.NewRepo(t, "notes")
	repo.Write("a.md", "# Almanac\n\nTides for the year.\n")
	repo.Commit("first")
	url, stop := gitserver.Daemon(t, repo)
	s := start(t)
	id := addSource(t, s, map[string]any{"url": url})
	if job, _ := sync(t, s, id, nil); job.Status != ragd.JobCompleted {
		t.Fatalf("first sync: %s %s", job.Status, job.Error)
	}
	stop()
	job, _ := sync(t, s, id, map[string]any{"force": true})
	if job.Status != ragd.JobFailed {
		t.Fatalf("sync from a stopped server: %s", job.Status)
	}
	equal(t, "after the failed sync", paths(t, s), []string{"a.md"})
}

// A sync that would delete more than half of the source's documents
// stops and says so, deleting nothing, unless force.
func TestSyncDeletingMoreThanHalfStops(t *testing.T) {
	t.Parallel()
	repo := gitserver.NewRepo(t, "wiki")
	for _, n := range []string{"a", "b", "c", "d"} {
		repo.Write(n+".md", "# Page "+n+"\n\nThe page about "+n+" and nothing else.\n")
	}
	repo.Commit("four pages")
	url := gitserver.HTTP(t, repo)
	s := start(t)
	id := addSource(t, s, map[string]any{"url": url})
	if job, _ := sync(t, s, id, nil); job.Status != ragd.JobCompleted {
		t.Fatalf("first sync: %s %s", job.Status, job.Error)
	}
	repo.Git("rm", "-q", "a.md", "b.md", "c.md")
	repo.Commit("three gone")
	r := s.Do(t, "POST", "/sources/"+id+"/sync", map[string]any{"dry_run": true})
	if r.Status != http.StatusConflict || !strings.Contains(string(r.Body), "more than half") {
		t.Fatalf("dry run: %d %s", r.Status, r.Body)
	}
	job, _ := sync(t, s, id, nil)
	if job.Status != ragd.JobFailed || !strings.Contains(job.Error, "3 of the source's 4 documents") {
		t.Fatalf("sync: %s %q", job.Status, job.Error)
	}
	equal(t, "after the stopped sync", paths(t, s), []string{"a.md", "b.md", "c.md", "d.md"})
	if job, _ := sync(t, s, id, map[string]any{"force": true}); job.Status != ragd.JobCompleted {
		t.Fatalf("forced sync: %s %s", job.Status, job.Error)
	}
	equal(t, "after the forced sync", paths(t, s), []string{"d.md"})
}
