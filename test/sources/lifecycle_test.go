package sources_test

import (
	"net/http"
	"strings"
	"testing"

	"ragd"
	"ragd/internal/testkit/gitserver"
	"ragd/internal/testkit/stack"
)

// Each bound is a setting, and a sync past it fails naming it, deleting
// nothing.
func TestSyncPastABoundFailsNamingTheSetting(t *testing.T) {
	t.Parallel()
	repo := gitserver.NewRepo(t, "big")
	for _, n := range []string{"a", "b", "c"} {
		repo.Write(n+".md", "# "+n+"\n\nPage "+n+".\n")
	}
	repo.Commit("three")
	url := gitserver.HTTP(t, repo)
	for _, c := range []struct {
		setting string
		set     func(*stack.Stack)
	}{
		{"sources.git_max_files", func(s *stack.Stack) { s.Git.MaxFiles = 2 }},
		{"sources.git_max_repo_bytes", func(s *stack.Stack) { s.Git.MaxRepoBytes = 1024 }},
	} {
		s := start(t)
		c.set(s)
		id := addSource(t, s, map[string]any{"url": url})
		job, _ := sync(t, s, id, nil)
		if job.Status != ragd.JobFailed || !strings.Contains(job.Error, c.setting) {
			t.Errorf("%s: %s %q", c.setting, job.Status, job.Error)
		}
		if n := s.Git.Reads.Load(); n != 0 {
			t.Errorf("%s: %d blobs read", c.setting, n)
		}
	}
}

// PATCH changes what a source reads and the next sync follows it; DELETE
// deletes its documents, or keeps them with keep_documents.
func TestPatchAndDeleteASource(t *testing.T) {
	t.Parallel()
	repo := gitserver.NewRepo(t, "manual")
	repo.Write("guide/a.md", "# Arrival\n\nMoor at the east quay.\n")
	repo.Write("guide/b.md", "# Berths\n\nBerths are assigned by the harbour master.\n")
	repo.Write("notes/c.md", "# Crew\n\nCrew lists are filed on arrival.\n")
	repo.Commit("manual")
	url := gitserver.HTTP(t, repo)
	s := start(t)
	id := addSource(t, s, map[string]any{"url": url, "include": []string{"guide/"}})
	if job, _ := sync(t, s, id, nil); job.Status != ragd.JobCompleted {
		t.Fatalf("sync: %s %s", job.Status, job.Error)
	}
	equal(t, "with include guide/", paths(t, s), []string{"guide/a.md", "guide/b.md"})
	r := s.Do(t, "PATCH", "/sources/"+id, map[string]any{"include": []string{}, "exclude": []string{"guide/b.md"}})
	if r.Status != http.StatusOK {
		t.Fatalf("PATCH: %d %s", r.Status, r.Body)
	}
	if r := s.Do(t, "PATCH", "/sources/"+id, map[string]any{"every": "1s"}); r.Status != http.StatusUnprocessableEntity {
		t.Fatalf("PATCH every 1s: %d %s", r.Status, r.Body)
	}
	if job, _ := sync(t, s, id, nil); job.Status != ragd.JobCompleted {
		t.Fatalf("sync after PATCH: %s %s", job.Status, job.Error)
	}
	equal(t, "after PATCH", paths(t, s), []string{"guide/a.md", "notes/c.md"})

	other := addSource(t, s, map[string]any{"url": url, "ref": "main", "include": []string{"notes/"}})
	if job, _ := sync(t, s, other, nil); job.Status != ragd.JobCompleted {
		t.Fatalf("sync of the second source: %s %s", job.Status, job.Error)
	}
	r = s.Do(t, "DELETE", "/sources/"+other+"?keep_documents=true", nil)
	if r.Status != http.StatusOK || !strings.Contains(string(r.Body), `"documents_deleted":0`) {
		t.Fatalf("DELETE keep_documents: %d %s", r.Status, r.Body)
	}
	r = s.Do(t, "DELETE", "/sources/"+id, nil)
	if r.Status != http.StatusOK || !strings.Contains(string(r.Body), `"documents_deleted":2`) {
		t.Fatalf("DELETE: %d %s", r.Status, r.Body)
	}
	equal(t, "after deleting the first source", paths(t, s), []string{"notes/c.md"})
	if r := s.Do(t, "GET", "/sources/"+id, nil); r.Status != http.StatusNotFound {
		t.Fatalf("GET a deleted source: %d", r.Status)
	}
}

// A copy of a file, and a file changed to another's content, each keep a
// document of their own with their own content: another document holding
// the same text does not stand in for them.
func TestCopiesKeepTheirOwnDocuments(t *testing.T) {
	t.Parallel()
	repo := gitserver.NewRepo(t, "copies")
	same := "# Tides\n\nHigh water is at noon at the outer mark.\n"
	repo.Write("a.md", same)
	repo.Write("b.md", "# Bells\n\nThe bell is rung in fog.\n")
	repo.Commit("two")
	url := gitserver.HTTP(t, repo)
	s := start(t)
	id := addSource(t, s, map[string]any{"url": url})
	if job, _ := sync(t, s, id, nil); job.Status != ragd.JobCompleted {
		t.Fatalf("sync: %s %s", job.Status, job.Error)
	}
	repo.Write("b.md", same)
	repo.Write("c.md", same)
	repo.Commit("b changed to a's text, c a copy")
	if job, _ := sync(t, s, id, nil); job.Status != ragd.JobCompleted {
		t.Fatalf("second sync: %s %s", job.Status, job.Error)
	}
	equal(t, "documents", paths(t, s), []string{"a.md", "b.md", "c.md"})
	a := document(t, s, ragd.GitURI(url, "", "a.md"))
	for _, p := range []string{"b.md", "c.md"} {
		if d := document(t, s, ragd.GitURI(url, "", p)); d.ContentHash != a.ContentHash || d.Chunks == 0 {
			t.Errorf("%s: content %s with %d chunks, want a.md's %s", p, d.ContentHash, d.Chunks, a.ContentHash)
		}
	}
}

// A sync is a job like a directory's: cancelled, it never runs, and the
// source says so.
func TestCancelledSyncIsRecorded(t *testing.T) {
	t.Parallel()
	s := stack.Start(t, stack.Config(t), false)
	id := addSource(t, s, map[string]any{"url": "https://example.org/handbook.git"})
	r := s.Do(t, "POST", "/sources/"+id+"/sync", nil)
	var e struct {
		JobID string `json:"job_id"`
	}
	decode(t, r.Body, &e)
	if r.Status != http.StatusAccepted || e.JobID == "" {
		t.Fatalf("sync: %d %s", r.Status, r.Body)
	}
	if again := s.Do(t, "POST", "/sources/"+id+"/sync", nil); !strings.Contains(string(again.Body), e.JobID) {
		t.Fatalf("a second sync while the first is queued: %s", again.Body)
	}
	if r := s.Do(t, "POST", "/jobs/"+e.JobID+"/cancel", nil); r.Status != http.StatusOK {
		t.Fatalf("cancel: %d %s", r.Status, r.Body)
	}
	r = s.Do(t, "GET", "/sources/"+id, nil)
	var src ragd.Source
	decode(t, r.Body, &src)
	if src.LastSync == nil || src.LastSync.JobID != e.JobID || src.LastSync.Outcome != string(ragd.JobCancelled) || src.Commit != "" {
		t.Fatalf("after the cancel: %s", r.Body)
	}
}

// A file past ingest.max_file_bytes is not read, and the rest of the sync
// goes on: the sync completes with it unread, saying why, and a document
// it had is kept.
func TestAFileTooLargeIsUnreadNotTheSyncFailed(t *testing.T) {
	t.Parallel()
	repo := gitserver.NewRepo(t, "mixed")
	repo.Write("a.md", "# Anchors\n\nThe anchor chain is inspected every spring.\n")
	repo.Write("big.md", "# Big\n\nIt grows.\n")
	repo.Commit("two")
	url := gitserver.HTTP(t, repo)
	cfg := stack.Config(t)
	cfg.Ingest.AllowPrivateURLs, cfg.Worker.MaxRetries, cfg.Ingest.MaxFileBytes = true, 0, 100
	s := start2(t, cfg)
	id := addSource(t, s, map[string]any{"url": url})
	if job, _ := sync(t, s, id, nil); job.Status != ragd.JobCompleted {
		t.Fatalf("first sync: %s %s", job.Status, job.Error)
	}
	repo.Write("big.md", "# Big\n\n"+strings.Repeat("It grows and grows. ", 20)+"\n")
	repo.Write("c.md", "# Charts\n\nCharts are corrected weekly.\n")
	repo.Commit("big grew, c added")
	job, res := sync(t, s, id, nil)
	if job.Status != ragd.JobCompleted || res.FilesUnread != 1 || res.FilesIndexed != 1 {
		t.Fatalf("sync with a file too large: %s %q %+v", job.Status, job.Error, res)
	}
	equal(t, "big.md's document kept, c.md indexed", paths(t, s), []string{"a.md", "big.md", "c.md"})
	r := s.Do(t, "GET", "/sources/"+id, nil)
	var src ragd.Source
	decode(t, r.Body, &src)
	if src.LastSync == nil || src.LastSync.Failed != 1 || !strings.Contains(src.LastSync.Unread["big.md"], "ingest.max_file_bytes") {
		t.Fatalf("GET /sources/%s: %s", id, r.Body)
	}
}
