package cli_test

import (
	"encoding/json"
	"strings"
	"testing"

	"ragd"
	"ragd/internal/cli"
	"ragd/internal/testkit/gitserver"
	"ragd/internal/testkit/stack"
	"ragd/wire"
)

// ragd sources add, ls, sync (followed to its end) and rm keep a Git
// repository in sync from the command line; a sync that fails exits 1
// with the server's reason.
func TestSourcesCommands(t *testing.T) {
	t.Parallel()
	repo := gitserver.NewRepo(t, "cli.git")
	repo.Write("a.md", "# Almanac\n\nSunrise and sunset for the harbour.\n")
	repo.Write("b.md", "# Buoyage\n\nLateral marks.\n")
	repo.Commit("two")
	url, stop := gitserver.Daemon(t, repo)
	cfg := stack.Config(t)
	cfg.Ingest.AllowPrivateURLs = true
	cfg.Worker.MaxRetries = 0
	s := stack.Start(t, cfg, true)

	r := run(t, s.URL, "--json", "sources", "add", url, "--kb", "harbour", "--every", "1h", "--tags", "almanac")
	var src ragd.Source
	if err := json.Unmarshal([]byte(r.stdout), &src); err != nil || r.code != cli.ExitOK || src.Namespace != "harbour" {
		t.Fatalf("ragd sources add: %v\n%s", err, r)
	}
	r = run(t, s.URL, "sources", "sync", src.ID)
	if r.code != cli.ExitOK {
		t.Fatalf("ragd sources sync:\n%s", r)
	}
	r = run(t, s.URL, "sources", "ls")
	if r.code != cli.ExitOK || !strings.Contains(r.stdout, src.ID) || !strings.Contains(r.stdout, "last completed") ||
		!strings.Contains(r.stdout, "+2 ~0 -0") || !strings.Contains(r.stdout, "next ") {
		t.Fatalf("ragd sources ls:\n%s", r)
	}
	stop()
	r = run(t, s.URL, "sources", "sync", src.ID, "--force")
	if r.code != cli.ExitFailed || !strings.Contains(r.stderr, "failed") {
		t.Fatalf("ragd sources sync from a stopped server:\n%s", r)
	}
	r = run(t, s.URL, "--json", "sources", "rm", src.ID)
	var del wire.SourceDeleted
	if err := json.Unmarshal([]byte(r.stdout), &del); err != nil || del.DocumentsDeleted != 2 {
		t.Fatalf("ragd sources rm: %v\n%s", err, r)
	}
	if r := run(t, s.URL, "sources", "frobnicate"); r.code != cli.ExitUsage {
		t.Fatalf("ragd sources frobnicate:\n%s", r)
	}
}
