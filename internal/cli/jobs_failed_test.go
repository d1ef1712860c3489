package cli_test

import (
	"encoding/json"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"ragd"
	"ragd/internal/testkit/stack"
	"ragd/wire"
)

// A directory with a file that fails for good completes (the others are
// indexed) while Asynq archives the file's task, which its web UI shows as
// failed: `ragd jobs --status failed` and GET /jobs?status=failed list the
// directory, and `ragd jobs` says how many of its files failed. Before,
// both answered that there were no failed jobs.
func TestJobsStatusFailedFindsDirectoryWithFailedFile(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	dir := filepath.Join(root, "mixed")
	writeFile(t, filepath.Join(dir, "otters.md"), "# Otters\n\nSea otters hold hands while they sleep.\n")
	writeFile(t, filepath.Join(dir, "tambora.md"), "# Volcanoes\n\nMount Tambora erupted in 1815.\n")
	writeFile(t, filepath.Join(dir, "broken.pdf"), "this is not a PDF at all\n")
	s := stack.Start(t, stack.Config(t, root), true)
	if r := run(t, s.URL, "ingest", dir, "--kb", "mixed"); !strings.Contains(r.stdout, "2 indexed") || !strings.Contains(r.stdout, "1 failed") {
		t.Fatalf("ingest:\n%s", r)
	}

	var all wire.JobList
	decode(t, run(t, s.URL, "jobs", "--json", "--kb", "mixed"), &all)
	if len(all.Jobs) != 1 || all.Jobs[0].Status != ragd.JobCompleted {
		t.Fatalf("jobs: %+v", all)
	}
	id := all.Jobs[0].ID

	resp, err := http.Get(s.URL + "/jobs?status=failed&kb_name=mixed")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var rest wire.JobList
	if err := json.NewDecoder(resp.Body).Decode(&rest); err != nil || resp.StatusCode != http.StatusOK ||
		rest.Total != 1 || len(rest.Jobs) != 1 || rest.Jobs[0].ID != id {
		t.Errorf("GET /jobs?status=failed: %d %+v, %v", resp.StatusCode, rest, err)
	}
	failed := run(t, s.URL, "jobs", "--status", "failed", "--kb", "mixed")
	if failed.code != 0 || !strings.Contains(failed.stdout, id) || !strings.Contains(failed.stdout, "1 of 3 files failed") {
		t.Errorf("jobs --status failed:\n%s", failed)
	}
	if done := run(t, s.URL, "jobs", "--status", "completed", "--kb", "mixed"); strings.Contains(done.stdout, id) {
		t.Errorf("jobs --status completed lists the directory whose file failed:\n%s", done)
	}
}
