package sources_test

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"ragd"
	"ragd/internal/platform/config"
	"ragd/internal/testkit/gitserver"
	"ragd/internal/testkit/stack"
)

// Each refusal POST /sources promises, with its status and a message
// naming what is wrong: kinds not built name the one that is, a file://
// URL outside the ingest roots is 403, a private address without
// ingest.allow_private_urls is 403, and so on.
func TestSourceRefusals(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	cfg := stack.Config(t, root)
	s := stack.Start(t, cfg, false) // allow_private_urls off
	outside := t.TempDir()
	cases := []struct {
		name   string
		body   map[string]any
		status int
		says   string
	}{
		{"web with a ref", map[string]any{"kind": "web", "url": "https://example.org/", "ref": "main"}, 422, "ref is not a field of web sources"},
		{"unknown kind", map[string]any{"kind": "svn", "url": "svn://x"}, 422, "unknown kind"},
		{"no kind", map[string]any{"url": "https://example.org/r.git"}, 422, "kind is required"},
		{"no url", map[string]any{"kind": "git"}, 422, "needs a url"},
		{"file outside the roots", map[string]any{"kind": "git", "url": "file://" + outside}, 403, "outside"},
		{"password in the url", map[string]any{"kind": "git", "url": "https://me:secret@example.org/r.git"}, 422, "no password"},
		{"query in the url", map[string]any{"kind": "git", "url": "https://example.org/r.git?x=1"}, 422, "no query"},
		{"other scheme", map[string]any{"kind": "git", "url": "ftp://example.org/r.git"}, 422, "is not one of https, http, git, ssh, file"},
		{"ssh key inline", map[string]any{"kind": "git", "url": "git@example.org:team/r.git", "ssh_key": "-----BEGIN OPENSSH PRIVATE KEY-----"}, 422, "env:VAR"},
		{"schedule too short", map[string]any{"kind": "git", "url": "https://example.org/r.git", "every": "10s"}, 422, "shorter than sources.min_every"},
		{"schedule not a duration", map[string]any{"kind": "git", "url": "https://example.org/r.git", "every": "hourly"}, 422, "duration"},
		{"bad ref", map[string]any{"kind": "git", "url": "https://example.org/r.git", "ref": "main..~1"}, 422, "not a branch or tag"},
		{"unknown field", map[string]any{"kind": "git", "url": "https://example.org/r.git", "branch": "main"}, 422, "extra_forbidden"},
	}
	for _, c := range cases {
		r := s.Do(t, "POST", "/sources", c.body)
		if r.Status != c.status || !strings.Contains(string(r.Body), c.says) {
			t.Errorf("%s: %d %s, want %d saying %q", c.name, r.Status, r.Body, c.status, c.says)
		}
	}
	// A git:// server on a loopback address is refused at the sync, as URL
	// ingest refuses one, while ingest.allow_private_urls is off.
	repo := gitserver.NewRepo(t, "private")
	repo.Write("a.md", "# A\n\nText.\n")
	repo.Commit("first")
	url, _ := gitserver.Daemon(t, repo)
	id := addSource(t, s, map[string]any{"url": url})
	r := s.Do(t, "POST", "/sources/"+id+"/sync", map[string]any{"dry_run": true})
	if r.Status != http.StatusForbidden || !strings.Contains(string(r.Body), "ingest.allow_private_urls") {
		t.Errorf("private address: %d %s", r.Status, r.Body)
	}
}

// A file:// repository inside the ingest roots is synced.
func TestFileURLInsideTheRoots(t *testing.T) {
	t.Parallel()
	repo := gitserver.NewRepo(t, "local")
	repo.Write("guide.md", "# Guide\n\nThe harbour guide.\n")
	repo.Commit("first")
	s := start(t, repo.Root)
	id := addSource(t, s, map[string]any{"url": "file://" + repo.Dir()})
	if job, _ := sync(t, s, id, nil); job.Status != ragd.JobCompleted {
		t.Fatalf("sync: %s %s", job.Status, job.Error)
	}
	equal(t, "documents", paths(t, s), []string{"guide.md"})
	// A symlink inside the roots to a directory outside is outside.
	link := filepath.Join(repo.Root, "elsewhere")
	if err := os.Symlink(t.TempDir(), link); err != nil {
		t.Fatal(err)
	}
	if r := s.Do(t, "POST", "/sources", map[string]any{"kind": "git", "url": "file://" + link}); r.Status != http.StatusForbidden {
		t.Fatalf("file:// through a symlink out of the roots: %d %s", r.Status, r.Body)
	}
}

const (
	opsToken = "ops-token-0123456789"
	engToken = "eng-token-0123456789"
)

// A source is visible to who may use its namespace, and only to them: a
// key limited to eng may not add one to fin, does not list fin's, and
// reads, syncs and deletes it as not found.
func TestSourcesFollowNamespaceRights(t *testing.T) {
	t.Parallel()
	cfg := stack.Config(t)
	cfg.Auth.Mode = "static-token"
	cfg.Auth.Keys = []config.AuthKey{{Name: "ops", Token: opsToken, Groups: []string{"*"}},
		{Name: "eng", Token: engToken, Namespaces: []string{"eng"}, Groups: []string{"*"}}}
	s := stack.Start(t, cfg, false)
	body := map[string]any{"kind": "git", "url": "https://example.org/fin.git", "kb_name": "fin"}
	if r := s.DoAs(t, engToken, "POST", "/sources", body); r.Status != http.StatusForbidden {
		t.Fatalf("eng adding to fin: %d %s", r.Status, r.Body)
	}
	r := s.DoAs(t, opsToken, "POST", "/sources", body)
	if r.Status != http.StatusCreated {
		t.Fatalf("ops adding to fin: %d %s", r.Status, r.Body)
	}
	var fin ragd.Source
	decode(t, r.Body, &fin)
	body["kb_name"], body["url"] = "eng", "https://example.org/eng.git"
	if r := s.DoAs(t, engToken, "POST", "/sources", body); r.Status != http.StatusCreated {
		t.Fatalf("eng adding to eng: %d %s", r.Status, r.Body)
	}
	r = s.DoAs(t, engToken, "GET", "/sources", nil)
	if strings.Contains(string(r.Body), fin.ID) || !strings.Contains(string(r.Body), "eng.git") {
		t.Fatalf("eng's list: %s", r.Body)
	}
	for _, m := range []struct{ method, path string }{{"GET", "/sources/" + fin.ID}, {"POST", "/sources/" + fin.ID + "/sync"},
		{"PATCH", "/sources/" + fin.ID}, {"DELETE", "/sources/" + fin.ID}} {
		var b any
		if m.method == "PATCH" {
			b = map[string]any{"every": ""}
		}
		if r := s.DoAs(t, engToken, m.method, m.path, b); r.Status != http.StatusNotFound {
			t.Errorf("eng: %s %s: %d %s", m.method, m.path, r.Status, r.Body)
		}
	}
	if r := s.DoAs(t, opsToken, "GET", "/sources/"+fin.ID, nil); r.Status != http.StatusOK {
		t.Fatalf("ops reading fin's source: %d %s", r.Status, r.Body)
	}
}
