package sources_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/crypto/ssh"

	"ragd"
	"ragd/internal/testkit/gitserver"
	"ragd/internal/testkit/stack"
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

// A repository over HTTPS whose certificate no system authority signed
// (a Git server with an internal CA): the sync fails saying so, deleting
// nothing, until sources.git_ca_file names the authority; a CA file that
// holds no certificate fails naming the setting.
func TestGitOverHTTPSWithAnInternalCA(t *testing.T) {
	t.Parallel()
	repo := gitserver.NewRepo(t, "internal.git")
	repo.Write("a.md", "# Access\n\nBadges are renewed every year.\n")
	repo.Commit("first")
	url, ca := gitserver.HTTPS(t, repo)
	caFile := filepath.Join(t.TempDir(), "ca.pem")
	notCA := filepath.Join(t.TempDir(), "not-a-ca.pem")
	for f, body := range map[string]string{caFile: ca, notCA: "not a certificate"} {
		if err := os.WriteFile(f, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct{ caFile, want string }{
		{"", "certificate"},
		{notCA, "sources.git_ca_file"},
		{caFile, ""},
	} {
		cfg := stack.Config(t)
		cfg.Ingest.AllowPrivateURLs, cfg.Worker.MaxRetries, cfg.Sources.GitCAFile = true, 0, c.caFile
		s := start2(t, cfg)
		id := addSource(t, s, map[string]any{"url": url})
		job, _ := sync(t, s, id, nil)
		switch {
		case c.want == "" && job.Status != ragd.JobCompleted:
			t.Fatalf("with the CA file: %s %q", job.Status, job.Error)
		case c.want != "" && (job.Status != ragd.JobFailed || !strings.Contains(job.Error, c.want)):
			t.Errorf("CA file %q: %s %q, want failed saying %q", c.caFile, job.Status, job.Error, c.want)
		}
		want := []string{}
		if c.want == "" {
			want = []string{"a.md"}
		}
		equal(t, "CA file "+c.caFile, paths(t, s), want)
	}
}
