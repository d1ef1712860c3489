package cli_test

import (
	"path/filepath"
	"strings"
	"testing"

	"ragd/internal/cli"
	"ragd/internal/platform/config"
	"ragd/internal/testkit/stack"
)

// A job that fails (a corrupt PDF) exits 1, in place and uploaded, with
// the job's error in the summary and one line on stderr.
func TestFailedJobExitsOne(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	s := stack.Start(t, stack.Config(t, root), true)
	bad := writeFile(t, filepath.Join(root, "broken.pdf"), "%PDF-1.4\nthis is no PDF at all\n")
	outside := writeFile(t, filepath.Join(t.TempDir(), "mixed", "also-broken.pdf"), "%PDF-1.7\nneither is this\n")
	writeFile(t, filepath.Join(filepath.Dir(outside), "fine.txt"), "A perfectly readable note about lighthouses.")

	r := run(t, s.URL, "ingest", "--json", bad, filepath.Dir(outside))
	var out ingestOutput
	decode(t, r, &out)
	if r.code != cli.ExitFailed || len(out.Jobs) != 2 {
		t.Fatalf("ingest of corrupt PDFs:\n%s", r)
	}
	oneLine(t, r, "2 of 2 paths did not complete")
	inPlace, upload := out.Jobs[0], out.Jobs[1]
	if inPlace.Status != "failed" || inPlace.FilesFailed != 1 || len(inPlace.Failures) != 1 ||
		inPlace.Failures[0].File != bad || !strings.Contains(inPlace.Failures[0].Error, "PDF") {
		t.Errorf("in place: %+v", inPlace)
	}
	if upload.Mode != cli.ModeUpload || upload.Status != "failed" || upload.FilesFailed != 1 || upload.FilesIndexed != 1 ||
		len(upload.Failures) != 1 || !strings.HasSuffix(upload.Failures[0].File, "also-broken.pdf") {
		t.Errorf("upload: %+v", upload)
	}
	// For people: the summary names the file and why.
	human := run(t, s.URL, "ingest", bad, "--kb", "other")
	if human.code != cli.ExitFailed || !strings.Contains(human.stdout, "failed: "+bad+": ") {
		t.Errorf("summary of a failed job:\n%s", human)
	}
	// A file the server refuses outright (an unsupported type) fails too.
	exe := writeFile(t, filepath.Join(t.TempDir(), "tool.exe"), "MZ")
	refused := run(t, s.URL, "ingest", exe)
	if refused.code != cli.ExitFailed || !strings.Contains(refused.stdout, "unsupported file type") {
		t.Errorf("unsupported file:\n%s", refused)
	}
}

// Usage errors exit 2 and an unreachable server 3, each with one line on
// stderr and nothing on stdout.
func TestUsageAndUnreachableExits(t *testing.T) {
	t.Parallel()
	down := closedPort(t)
	usage := map[string][]string{
		"missing QUERY":             {"search"},
		"missing PATH...":           {"ingest", "--kb", "x"},
		"--top-k must be between":   {"search", "q", "--top-k", "99"},
		"flag provided but not def": {"docs", "--colour"},
		"unexpected arguments: b":   {"cancel", "a", "b"},
		"no such file or directory": {"ingest", filepath.Join(t.TempDir(), "absent.md")},
		"not an http(s) URL":        {"--server", "ftp://example", "docs"},
		"not a namespace name":      {"export", "Bad Name", "x.gz"},
	}
	for want, args := range usage {
		r := run(t, down, args...)
		if r.code != cli.ExitUsage || r.stdout != "" {
			t.Errorf("%v: want exit 2\n%s", args, r)
		}
		oneLine(t, r, want)
	}
	if r := run(t, down, "frobnicate"); r.code != cli.ExitUsage || !strings.Contains(r.stderr, `unknown command "frobnicate"`) {
		t.Errorf("unknown command:\n%s", r)
	}
	if r := run(t, down, "help"); r.code != 0 || !strings.Contains(r.stdout, "ragd ingest PATH...") || !strings.Contains(r.stdout, "ragd serve") {
		t.Errorf("help:\n%s", r)
	}
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "a.md"), "# A\n\ntext")
	for _, args := range [][]string{{"docs"}, {"search", "anything"}, {"ingest", dir}, {"jobs", "--watch"}, {"--json", "ask", "why"}} {
		r := run(t, down, args...)
		if r.code != cli.ExitUnreachable {
			t.Errorf("%v against a closed port: want exit 3\n%s", args, r)
		}
		oneLine(t, r, "cannot reach ragd at "+down)
	}
	// --server wins over RAGD_SERVER.
	r := runEnv(t, cliEnv("RAGD_SERVER=http://127.0.0.1:1"), "--server", down, "docs")
	oneLine(t, r, "cannot reach ragd at "+down)
}

// --token and RAGD_TOKEN are sent as a bearer token; without one the
// server's 401 is exit 1.
func TestToken(t *testing.T) {
	t.Parallel()
	cfg := stack.Config(t)
	cfg.Auth.Mode = "static-token"
	cfg.Auth.Keys = []config.AuthKey{{Name: "admin", Token: "tok-cli-0123456789", Groups: []string{"*"}}}
	s := stack.Start(t, cfg, false)
	r := run(t, s.URL, "docs")
	if r.code != cli.ExitFailed {
		t.Fatalf("without a token:\n%s", r)
	}
	oneLine(t, r, "401")
	if r := run(t, s.URL, "docs", "--token", "tok-cli-0123456789"); r.code != 0 || !strings.Contains(r.stdout, "no documents in default") {
		t.Errorf("--token:\n%s", r)
	}
	if r := runEnv(t, cliEnv("RAGD_SERVER="+s.URL, "RAGD_TOKEN=tok-cli-0123456789"), "jobs"); r.code != 0 || r.stdout != "no jobs in the namespaces this key may use\n" {
		t.Errorf("RAGD_TOKEN:\n%s", r)
	}
}
