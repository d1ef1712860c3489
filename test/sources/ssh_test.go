package sources_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/crypto/ssh"

	"ragd"
	"ragd/internal/testkit/gitserver"
)

// A repository over SSH, read with a deploy key from the server's
// environment (ssh_key: env:VAR) and the host checked against
// SSH_KNOWN_HOSTS: it syncs; a key the host does not take, a host whose
// key is not the one known, and a variable that is not set each fail the
// sync with a message saying so, and delete nothing.
func TestGitOverSSHWithADeployKey(t *testing.T) {
	repo := gitserver.NewRepo(t, "ops.git")
	repo.Write("a.md", "# Alerts\n\nPage the on-call engineer after two failed checks.\n")
	repo.Write("b.md", "# Backups\n\nBackups are verified every Monday.\n")
	repo.Commit("first")
	srv := gitserver.SSH(t, repo)
	key, pub := gitserver.NewKey(t)
	srv.Allow(pub)
	t.Setenv("RAGD_TEST_DEPLOY_KEY", key)
	t.Setenv("SSH_KNOWN_HOSTS", srv.KnownHosts)
	other, _ := gitserver.NewKey(t)
	t.Setenv("RAGD_TEST_OTHER_KEY", other)

	s := start(t)
	id := addSource(t, s, map[string]any{"url": srv.URL, "ssh_key": "env:RAGD_TEST_DEPLOY_KEY"})
	if job, res := sync(t, s, id, nil); job.Status != ragd.JobCompleted || res.FilesAdded != 2 {
		t.Fatalf("sync over ssh: %s %q %+v", job.Status, job.Error, res)
	}
	equal(t, "after the sync over ssh", paths(t, s), []string{"a.md", "b.md"})
	repo.Git("rm", "-q", "b.md")
	repo.Commit("b gone")

	wrongHost := filepath.Join(t.TempDir(), "known_hosts")
	known, err := os.ReadFile(srv.KnownHosts)
	if err != nil {
		t.Fatal(err)
	}
	host, _, _ := strings.Cut(string(known), " ")
	_, otherPub := gitserver.NewKey(t)
	if err := os.WriteFile(wrongHost, []byte(host+" "+strings.TrimSpace(string(ssh.MarshalAuthorizedKey(otherPub)))+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, key, knownHosts, want string
	}{
		{"a key the host refuses", "env:RAGD_TEST_OTHER_KEY", srv.KnownHosts, "unable to authenticate"},
		{"a host key not the one known", "env:RAGD_TEST_DEPLOY_KEY", wrongHost, "key mismatch"},
		{"a variable not set", "env:RAGD_TEST_NO_SUCH_KEY", srv.KnownHosts, "RAGD_TEST_NO_SUCH_KEY"},
	} {
		t.Setenv("SSH_KNOWN_HOSTS", tc.knownHosts)
		if r := s.Do(t, "PATCH", "/sources/"+id, map[string]any{"ssh_key": tc.key}); r.Status != 200 {
			t.Fatalf("%s: PATCH: %d %s", tc.name, r.Status, r.Body)
		}
		job, _ := sync(t, s, id, nil)
		if job.Status != ragd.JobFailed || !strings.Contains(job.Error, tc.want) {
			t.Errorf("%s: %s %q, want failed saying %q", tc.name, job.Status, job.Error, tc.want)
		}
		equal(t, tc.name+": nothing deleted", paths(t, s), []string{"a.md", "b.md"})
	}
}
