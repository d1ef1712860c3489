package api_test

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"ragd"
	"ragd/internal/testkit/stack"
)

// syncRun posts a sync of dir and waits for its job; it returns the job's
// result.
func syncRun(t *testing.T, s *stack.Stack, dir string, extra map[string]any) ragd.DirectoryResult {
	t.Helper()
	body := map[string]any{"directory_path": dir, "kb_name": "sync", "sync": true}
	for k, v := range extra {
		body[k] = v
	}
	resp := s.Do(t, http.MethodPost, "/tools/rag_index_directory", body)
	if resp.Status != http.StatusAccepted {
		t.Fatalf("sync: %d %s", resp.Status, resp.Body)
	}
	job := s.WaitJob(t, str(resp.JSON, "job_id"), 2*time.Minute)
	var res ragd.DirectoryResult
	if job.Status != ragd.JobCompleted || json.Unmarshal(job.Result, &res) != nil {
		t.Fatalf("sync job: %+v", job)
	}
	return res
}

type syncPlan struct {
	Added, Changed []string
	Unchanged      int
	Deleted        []struct {
		DocumentID string `json:"document_id"`
		Source     string
	}
}

func dryRun(t *testing.T, s *stack.Stack, dir string, extra map[string]any) syncPlan {
	t.Helper()
	body := map[string]any{"directory_path": dir, "kb_name": "sync", "sync": true, "dry_run": true}
	for k, v := range extra {
		body[k] = v
	}
	resp := s.Do(t, http.MethodPost, "/tools/rag_index_directory", body)
	var plan syncPlan
	if resp.Status != http.StatusOK || json.Unmarshal(resp.Body, &plan) != nil {
		t.Fatalf("dry run: %d %s", resp.Status, resp.Body)
	}
	return plan
}

func documentSources(t *testing.T, s *stack.Stack) []string {
	t.Helper()
	resp := s.Do(t, http.MethodGet, "/documents?kb_name=sync", nil)
	var list struct{ Documents []ragd.Document }
	if resp.Status != http.StatusOK || json.Unmarshal(resp.Body, &list) != nil {
		t.Fatalf("documents: %d %s", resp.Status, resp.Body)
	}
	var out []string
	for _, d := range list.Documents {
		out = append(out, filepath.Base(d.Source))
	}
	return out
}

// A sync indexes what is new or changed, skips the rest unread, deletes
// the documents whose file is gone; prune:false keeps them; a dry run's
// plan is what the run then does.
func TestDirectorySync(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	dir := filepath.Join(root, "notes")
	s := stack.Start(t, stack.Config(t, root), true)
	write := func(name, text string) { writeFile(t, filepath.Join(dir, name), text) }
	write("keep.md", "# Keep\n\nThe lighthouse keeper logs every passing ship.")
	write("change.md", "# Change\n\nThe orchard grows quince and medlar.")
	write("gone.md", "# Gone\n\nThe ferry to the island stopped running in winter.")
	write("still.txt", "Soapstone carvings fill the museum's east wing.")
	if res := syncRun(t, s, dir, nil); res.FilesIndexed != 4 || res.FilesUnchanged != 0 || res.DocumentsDeleted != 0 {
		t.Fatalf("first sync: %+v", res)
	}
	if res := syncRun(t, s, dir, nil); res.FilesIndexed != 0 || res.FilesUnchanged != 4 {
		t.Fatalf("second sync of an unchanged directory: %+v", res)
	}

	// still.txt gets other bytes of the same length and its old time back:
	// a sync that skips by size and time never reads it, so its old text
	// stays what search finds.
	still := filepath.Join(dir, "still.txt")
	fi, _ := os.Stat(still)
	write("still.txt", "Whalebone carvings fill the museum's east wing.")
	if err := os.Chtimes(still, fi.ModTime(), fi.ModTime()); err != nil {
		t.Fatal(err)
	}
	write("change.md", "# Change\n\nThe orchard now grows only persimmons.")
	if err := os.Remove(filepath.Join(dir, "gone.md")); err != nil {
		t.Fatal(err)
	}
	write("new.md", "# New\n\nA glassblower opened a studio by the harbour.")

	kept := dryRun(t, s, dir, map[string]any{"prune": false})
	if len(kept.Deleted) != 0 {
		t.Fatalf("prune:false plans deletes: %+v", kept)
	}
	plan := dryRun(t, s, dir, nil)
	if !slices.Equal(names(plan.Added), []string{"new.md"}) || !slices.Equal(names(plan.Changed), []string{"change.md"}) ||
		plan.Unchanged != 2 || len(plan.Deleted) != 1 || filepath.Base(plan.Deleted[0].Source) != "gone.md" {
		t.Fatalf("plan: %+v", plan)
	}
	if got := documentSources(t, s); len(got) != 4 {
		t.Fatalf("a dry run changed the namespace: %v", got)
	}

	// prune:false indexes the new and changed files and keeps gone.md.
	res := syncRun(t, s, dir, map[string]any{"prune": false})
	if res.FilesIndexed != 2 || res.FilesUnchanged != 2 || res.DocumentsDeleted != 0 {
		t.Fatalf("sync without prune: %+v", res)
	}
	if got := documentSources(t, s); !slices.Contains(got, "gone.md") {
		t.Fatalf("prune:false deleted gone.md: %v", got)
	}
	// The full sync then does exactly what its plan says.
	plan = dryRun(t, s, dir, nil)
	if len(plan.Added)+len(plan.Changed) != 0 || plan.Unchanged != 4 || len(plan.Deleted) != 1 {
		t.Fatalf("plan before prune: %+v", plan)
	}
	res = syncRun(t, s, dir, nil)
	if res.FilesIndexed != 0 || res.FilesUnchanged != 4 || res.DocumentsDeleted != 1 {
		t.Fatalf("sync: %+v, want what the plan said", res)
	}
	if got := documentSources(t, s); slices.Contains(got, "gone.md") || len(got) != 4 {
		t.Fatalf("after sync: %v", got)
	}
	if r := search(t, s, "ferry island winter", "sync", 5); anyContains(r, "source", "gone.md") {
		t.Fatalf("deleted file still found: %v", r)
	}
	if n := s.ChunkCount(t, "sync", plan.Deleted[0].DocumentID); n != 0 {
		t.Fatalf("%d chunks of the deleted document remain", n)
	}
	if r := search(t, s, "orchard persimmons", "sync", 5); !anyContains(r, "text", "only persimmons") || anyContains(r, "text", "quince") {
		t.Fatalf("changed file not replaced: %v", r)
	}
	if r := search(t, s, "carvings museum", "sync", 5); !anyContains(r, "text", "Soapstone") || anyContains(r, "text", "Whalebone") {
		t.Fatalf("an unchanged file (by size and time) was read: %v", r)
	}
}

// A touched but unchanged file is hashed once, then skipped unread.
func TestSyncRecordsTouchedFile(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	dir := filepath.Join(root, "d")
	s := stack.Start(t, stack.Config(t, root), true)
	writeFile(t, filepath.Join(dir, "a.md"), "# A\n\nAmber resin traps ancient insects.")
	syncRun(t, s, dir, nil)
	later := time.Now().Add(time.Hour)
	if err := os.Chtimes(filepath.Join(dir, "a.md"), later, later); err != nil {
		t.Fatal(err)
	}
	if plan := dryRun(t, s, dir, nil); len(plan.Changed) != 1 {
		t.Fatalf("touched file: %+v", plan)
	}
	syncRun(t, s, dir, nil)
	if plan := dryRun(t, s, dir, nil); plan.Unchanged != 1 || len(plan.Changed) != 0 {
		t.Fatalf("after the touched file was hashed: %+v", plan)
	}
}

func TestSyncBadInput(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	s := stack.Start(t, stack.Config(t, root), false)
	for _, body := range []map[string]any{
		{"directory_path": root, "dry_run": true},
		{"directory_path": root, "prune": false},
		{"directory_path": "/etc", "sync": true, "dry_run": true},
	} {
		resp := s.Do(t, http.MethodPost, "/tools/rag_index_directory", body)
		if resp.Status != http.StatusUnprocessableEntity && resp.Status != http.StatusForbidden {
			t.Errorf("%v: %d %s", body, resp.Status, resp.Body)
		}
	}
}

func names(paths []string) []string {
	out := make([]string, len(paths))
	for i, p := range paths {
		out[i] = filepath.Base(p)
	}
	slices.Sort(out)
	return out
}
