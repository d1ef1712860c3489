package sources_test

import (
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"ragd"
	"ragd/internal/library"
	"ragd/internal/library/sourcesvc"
	"ragd/internal/platform/config"
	"ragd/internal/testkit/stack"
)

// writeFiles writes name → text under dir, each with a modification time
// of its own (a second apart from the last write), so a change is seen
// however fast the test runs.
func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, text := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		when := time.Now().Add(time.Duration(len(text)) * time.Second)
		if err := os.Chtimes(p, when, when); err != nil {
			t.Fatal(err)
		}
	}
}

// addDirectory adds a directory source as token ("" for none) and
// returns the response.
func addDirectory(t *testing.T, s *stack.Stack, token string, body map[string]any) stack.Response {
	t.Helper()
	body["kind"] = "directory"
	return s.DoAs(t, token, "POST", "/sources", body)
}

// directorySource adds a directory source and returns its id.
func directorySource(t *testing.T, s *stack.Stack, body map[string]any) string {
	t.Helper()
	return addKind(t, s, ragd.SourceDirectory, body)
}

// files are the paths, relative to dir, of the default namespace's
// documents read from files under dir.
func files(t *testing.T, s *stack.Stack, dir string) []string {
	t.Helper()
	r := s.Do(t, "GET", "/documents?limit=1000", nil)
	var list struct {
		Documents []ragd.Document `json:"documents"`
	}
	decode(t, r.Body, &list)
	out := []string{}
	for _, d := range list.Documents {
		if p, ok := ragd.URIFilePath(d.Source); ok && strings.HasPrefix(p, dir+"/") {
			out = append(out, strings.TrimPrefix(p, dir+"/"))
		}
	}
	slices.Sort(out)
	return out
}

// plan is a dry run's answer.
func plan(t *testing.T, s *stack.Stack, id string, force bool) (int, sourcesvc.SourcePlan) {
	t.Helper()
	r := s.Do(t, "POST", "/sources/"+id+"/sync", map[string]any{"dry_run": true, "force": force})
	var p sourcesvc.SourcePlan
	if r.Status == http.StatusOK {
		decode(t, r.Body, &p)
	}
	return r.Status, p
}

// counts is a sync's result as +added ~changed =unchanged -deleted.
type counts struct{ added, changed, unchanged, deleted int }

func countsOf(res ragd.DirectoryResult) counts {
	return counts{res.FilesAdded, res.FilesChanged, res.FilesUnchanged, res.DocumentsDeleted}
}

// A directory source syncs its directory as rag_index_directory's sync
// does: file:// documents, include/exclude obeyed, a second sync reads
// only the changed and new files and deletes the documents of the gone
// one; the source records each sync's counts.
func TestDirectorySourceReflectsEachChange(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	dir := filepath.Join(root, "handbook")
	writeFiles(t, dir, map[string]string{
		"a.md":        "# Anchors\n\nThe anchor chain is inspected every spring.\n",
		"b.md":        "# Buoys\n\nRed buoys mark the port side.\n",
		"c.md":        "# Charts\n\nCharts are corrected from the weekly notices.\n",
		"d.txt":       "Deck log: entries are made every watch.\n",
		"docs/e.md":   "# Engines\n\nThe engine room keeps its own log.\n",
		"drafts/x.md": "# Draft\n\nNot ready.\n",
		"logo.png":    "not an image we read",
	})
	s := start(t, root)
	id := directorySource(t, s, map[string]any{"url": "file://" + dir, "exclude": []string{"drafts/"}, "tags": []string{"handbook"}})
	status, p := plan(t, s, id, false)
	if status != http.StatusOK || len(p.Added) != 5 || !p.Full {
		t.Fatalf("dry run: %d %+v", status, p)
	}
	job, res := sync(t, s, id, nil)
	if job.Status != ragd.JobCompleted || countsOf(res) != (counts{5, 0, 0, 0}) {
		t.Fatalf("first sync: %s %s %+v", job.Status, job.Error, res)
	}
	equal(t, "after the first sync", files(t, s, dir), []string{"a.md", "b.md", "c.md", "d.txt", "docs/e.md"})

	writeFiles(t, dir, map[string]string{"a.md": "# Anchors\n\nThe anchor chain is inspected every autumn now.\n",
		"f.md": "# Flags\n\nThe ensign is hoisted at eight.\n"})
	if err := os.Remove(filepath.Join(dir, "b.md")); err != nil {
		t.Fatal(err)
	}
	job, res = sync(t, s, id, nil)
	if job.Status != ragd.JobCompleted || countsOf(res) != (counts{1, 1, 3, 1}) || res.FilesTotal != 5 {
		t.Fatalf("second sync: %s %s %+v", job.Status, job.Error, res)
	}
	equal(t, "after the second sync", files(t, s, dir), []string{"a.md", "c.md", "d.txt", "docs/e.md", "f.md"})

	r := s.Do(t, "GET", "/sources/"+id, nil)
	var src ragd.Source
	decode(t, r.Body, &src)
	if l := src.LastSync; l == nil || l.JobID != job.ID || l.Added != 1 || l.Changed != 1 || l.Unchanged != 3 || l.Deleted != 1 {
		t.Fatalf("last sync: %s", r.Body)
	}
	if job, res = sync(t, s, id, nil); job.Status != ragd.JobCompleted || countsOf(res) != (counts{0, 0, 5, 0}) {
		t.Fatalf("third sync, nothing changed: %s %+v", job.Status, res)
	}
	// Deleting the source prunes its documents.
	r = s.Do(t, "DELETE", "/sources/"+id, nil)
	if r.Status != http.StatusOK || !strings.Contains(string(r.Body), `"documents_deleted":5`) {
		t.Fatalf("DELETE: %d %s", r.Status, r.Body)
	}
	equal(t, "after DELETE", files(t, s, dir), []string{})
}

// A directory indexed by rag_index_directory and then added as a source
// keeps its documents: the source's first sync reads nothing.
func TestDirectoryIndexedBeforeBecomesASource(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	dir := filepath.Join(root, "notes")
	writeFiles(t, dir, map[string]string{"a.md": "# A\n\nAlpha notes.\n", "b.md": "# B\n\nBravo notes here.\n",
		"sub/c.txt": "Charlie notes, a little longer.\n"})
	s := start(t, root)
	r := s.Do(t, "POST", "/tools/rag_index_directory", map[string]any{"directory_path": dir, "sync": true})
	if r.Status != http.StatusAccepted {
		t.Fatalf("rag_index_directory: %d %s", r.Status, r.Body)
	}
	var e library.Enqueued
	decode(t, r.Body, &e)
	if job := s.WaitJob(t, *e.JobID, 60*time.Second); job.Status != ragd.JobCompleted {
		t.Fatalf("directory job: %s %s", job.Status, job.Error)
	}
	id := directorySource(t, s, map[string]any{"url": dir})
	if status, p := plan(t, s, id, false); status != http.StatusOK || len(p.Added)+len(p.Changed)+len(p.Deleted) != 0 || p.Unchanged != 3 {
		t.Fatalf("dry run: %d %+v", status, p)
	}
	job, res := sync(t, s, id, nil)
	if job.Status != ragd.JobCompleted || countsOf(res) != (counts{0, 0, 3, 0}) {
		t.Fatalf("first sync: %s %s %+v", job.Status, job.Error, res)
	}
	equal(t, "documents", files(t, s, dir), []string{"a.md", "b.md", "sub/c.txt"})
}

// A sync that would delete more than half of the source's documents
// stops, deletes nothing and says so; with force it deletes them.
func TestDirectorySyncRefusesToDeleteMoreThanHalf(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	dir := filepath.Join(root, "docs")
	writeFiles(t, dir, map[string]string{"a.md": "# A\n\nAlpha.\n", "b.md": "# B\n\nBravo b.\n", "c.md": "# C\n\nCharlie c c.\n",
		"d.md": "# D\n\nDelta d d d.\n"})
	s := start(t, root)
	id := directorySource(t, s, map[string]any{"url": dir})
	if job, _ := sync(t, s, id, nil); job.Status != ragd.JobCompleted {
		t.Fatalf("first sync: %s %s", job.Status, job.Error)
	}
	for _, f := range []string{"a.md", "b.md", "c.md"} {
		if err := os.Remove(filepath.Join(dir, f)); err != nil {
			t.Fatal(err)
		}
	}
	if status, _ := plan(t, s, id, false); status != http.StatusConflict {
		t.Fatalf("dry run deleting 3 of 4: %d, want 409", status)
	}
	job, _ := sync(t, s, id, nil)
	if job.Status != ragd.JobFailed || !strings.Contains(job.Error, "delete 3 of the source's 4 documents, more than half") {
		t.Fatalf("sync deleting 3 of 4: %s %q", job.Status, job.Error)
	}
	equal(t, "after the refused sync", files(t, s, dir), []string{"a.md", "b.md", "c.md", "d.md"})
	job, res := sync(t, s, id, map[string]any{"force": true})
	if job.Status != ragd.JobCompleted || countsOf(res) != (counts{0, 0, 1, 3}) {
		t.Fatalf("forced sync: %s %s %+v", job.Status, job.Error, res)
	}
	equal(t, "after the forced sync", files(t, s, dir), []string{"d.md"})
}

// Each refusal of a directory source: outside the ingest roots (403),
// outside the asking key's own roots (403), a relative path, a file, a
// setting of another kind (422).
func TestDirectorySourceRefusals(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	team, other := filepath.Join(root, "team"), filepath.Join(root, "other")
	writeFiles(t, team, map[string]string{"a.md": "# A\n\nTeam.\n"})
	writeFiles(t, other, map[string]string{"b.md": "# B\n\nOther.\n"})
	cfg := stack.Config(t, root)
	cfg.Auth.Mode = "static-token"
	cfg.Auth.Keys = []config.AuthKey{{Name: "ops", Token: "ops-token-0123456789", Groups: []string{"*"}},
		{Name: "team", Token: "team-token-0123456789", Roots: []string{team}}}
	s := stack.Start(t, cfg, false)
	outside := t.TempDir()
	cases := []struct {
		name, token string
		body        map[string]any
		status      int
		says        string
	}{
		{"outside the ingest roots", "ops-token-0123456789", map[string]any{"url": outside}, 403, "outside"},
		{"outside the key's roots", "team-token-0123456789", map[string]any{"url": other}, 403, "outside"},
		{"a relative path", "ops-token-0123456789", map[string]any{"url": "team"}, 422, "absolute path"},
		{"a file", "ops-token-0123456789", map[string]any{"url": filepath.Join(team, "a.md")}, 422, "is not a directory"},
		{"a ref", "ops-token-0123456789", map[string]any{"url": team, "ref": "main"}, 422, "a directory source has no ref"},
		{"a remote file URL", "ops-token-0123456789", map[string]any{"url": "file://host" + team}, 422, "absolute path"},
	}
	for _, c := range cases {
		r := addDirectory(t, s, c.token, c.body)
		if r.Status != c.status || !strings.Contains(string(r.Body), c.says) {
			t.Errorf("%s: %d %s, want %d saying %q", c.name, r.Status, r.Body, c.status, c.says)
		}
	}
	if r := addDirectory(t, s, "team-token-0123456789", map[string]any{"url": team}); r.Status != http.StatusCreated {
		t.Errorf("inside the key's roots: %d %s", r.Status, r.Body)
	}
}

// The config's watch: entries are listed as directory sources, read-only
// (PATCH and DELETE answer 409 naming watch:) and synced on request by
// the directory sync their watchers run.
func TestWatchEntriesAreDirectorySources(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	dir := filepath.Join(root, "watched")
	writeFiles(t, dir, map[string]string{"a.md": "# A\n\nWatched alpha.\n", "b.md": "# B\n\nWatched bravo.\n"})
	cfg := stack.Config(t, root)
	cfg.Watch = []config.WatchEntry{{Path: dir, KBName: "default"}}
	s := start2(t, cfg)
	r := s.Do(t, "GET", "/sources", nil)
	var list sourcesvc.SourceList
	decode(t, r.Body, &list)
	if len(list.Sources) != 1 {
		t.Fatalf("GET /sources: %s", r.Body)
	}
	w := list.Sources[0]
	if !w.Watch || w.Kind != ragd.SourceDirectory || w.URL != dir || w.Namespace != "default" || w.Every != "" || !strings.HasPrefix(w.ID, "watch_") {
		t.Fatalf("the watch: entry as a source: %s", r.Body)
	}
	if r := s.Do(t, "GET", "/sources/"+w.ID, nil); r.Status != http.StatusOK || !strings.Contains(string(r.Body), `"watch":true`) {
		t.Fatalf("GET /sources/%s: %d %s", w.ID, r.Status, r.Body)
	}
	for _, m := range []struct{ method, path string }{{"PATCH", "/sources/" + w.ID}, {"DELETE", "/sources/" + w.ID}} {
		r := s.Do(t, m.method, m.path, map[string]any{"every": "1h"})
		if m.method == "DELETE" {
			r = s.Do(t, m.method, m.path, nil)
		}
		if r.Status != http.StatusConflict || !strings.Contains(string(r.Body), "comes from the config's watch:") {
			t.Errorf("%s: %d %s, want 409 naming watch:", m.method, r.Status, r.Body)
		}
	}
	if status, p := plan(t, s, w.ID, false); status != http.StatusOK || len(p.Added) != 2 {
		t.Fatalf("dry run: %d %+v", status, p)
	}
	job, res := sync(t, s, w.ID, nil)
	if job.Status != ragd.JobCompleted || res.FilesTotal != 2 {
		t.Fatalf("sync: %s %s %+v", job.Status, job.Error, res)
	}
	equal(t, "documents", files(t, s, dir), []string{"a.md", "b.md"})
}

// include narrows a directory source to the files it names; a PATCH
// widening it brings the others in at the next sync, and narrowing it
// again keeps the documents of files still there.
func TestDirectorySourceInclude(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	dir := filepath.Join(root, "site")
	writeFiles(t, dir, map[string]string{"docs/a.md": "# A\n\nAlpha docs.\n", "docs/deep/b.md": "# B\n\nBravo deep docs.\n",
		"notes/c.md": "# C\n\nCharlie notes here.\n", "d.txt": "Delta at the top, longer.\n"})
	s := start(t, root)
	id := directorySource(t, s, map[string]any{"url": dir, "include": []string{"docs/**"}})
	if job, res := sync(t, s, id, nil); job.Status != ragd.JobCompleted || countsOf(res) != (counts{2, 0, 0, 0}) {
		t.Fatalf("first sync: %s %s %+v", job.Status, job.Error, res)
	}
	equal(t, "with include docs/**", files(t, s, dir), []string{"docs/a.md", "docs/deep/b.md"})
	if r := s.Do(t, "PATCH", "/sources/"+id, map[string]any{"include": []string{}, "exclude": []string{"*.txt"}}); r.Status != http.StatusOK {
		t.Fatalf("PATCH: %d %s", r.Status, r.Body)
	}
	if job, res := sync(t, s, id, nil); job.Status != ragd.JobCompleted || countsOf(res) != (counts{1, 0, 2, 0}) {
		t.Fatalf("after the PATCH: %s %s %+v", job.Status, job.Error, res)
	}
	equal(t, "without include, *.txt excluded", files(t, s, dir), []string{"docs/a.md", "docs/deep/b.md", "notes/c.md"})
	s.Do(t, "PATCH", "/sources/"+id, map[string]any{"include": []string{"notes/"}})
	if job, res := sync(t, s, id, nil); job.Status != ragd.JobCompleted || countsOf(res) != (counts{0, 0, 1, 0}) {
		t.Fatalf("narrowed again: %s %s %+v", job.Status, job.Error, res)
	}
	equal(t, "narrowed again: the files left out are kept", files(t, s, dir), []string{"docs/a.md", "docs/deep/b.md", "notes/c.md"})
}
