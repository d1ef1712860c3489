package library_test

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

// ignoredTree writes a project whose walk must skip node_modules, a
// hidden tool cache, ragd's data dir (excluded by the project's .gitignore,
// as this repository's is) and what the ignore files exclude. It returns
// the files a walk lists and the ones it skips, relative to dir.
func ignoredTree(t *testing.T, dir string) (kept, skipped []string) {
	t.Helper()
	files := map[string]string{
		"README.md":                       "# Project\n\nThe ferryman rows travellers across the river.",
		"docs/data/schema.md":             "# Schema\n\nThe ledger records every toll collected.",
		"guide/keep.draft.md":             "# Kept draft\n\nThe miller grinds barley at the weir.",
		"node_modules/pkg/README.md":      "# Package\n\nA dependency's readme.",
		"test/client/node_modules/x/a.md": "# Nested dependency",
		".tools/mod/README.md":            "# Tool cache",
		"data/uploads/copy.md":            "# ragd's own data",
		"notes.draft.md":                  "# Draft\n\nUnfinished.",
		"guide/local.md":                  "# Local\n\nScratch notes.",
		"private/plan.md":                 "# Plan\n\nNot for the index.",
		".gitignore":                      "/data/\n*.draft.md\n",
		"guide/.gitignore":                "!keep.draft.md\nlocal.md\n",
		".ragdignore":                     "private/\n",
	}
	for f, text := range files {
		p := filepath.Join(dir, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	kept = []string{"README.md", "docs/data/schema.md", "guide/keep.draft.md"}
	skipped = []string{"data/uploads/copy.md", "guide/local.md", "node_modules/pkg/README.md", "notes.draft.md",
		"private/plan.md", "test/client/node_modules/x/a.md"}
	return kept, skipped
}

type plan struct {
	Added, Changed []string
	Unchanged      int
	Deleted        []struct{ Source string }
}

func dryRun(t *testing.T, s *stack.Stack, body map[string]any) plan {
	t.Helper()
	body["sync"], body["dry_run"] = true, true
	resp := s.Do(t, http.MethodPost, "/tools/rag_index_directory", body)
	var p plan
	if resp.Status != http.StatusOK || json.Unmarshal(resp.Body, &p) != nil {
		t.Fatalf("dry run: %d %s", resp.Status, resp.Body)
	}
	return p
}

func rel(t *testing.T, dir string, paths []string) []string {
	t.Helper()
	out := []string{}
	for _, p := range paths {
		r, err := filepath.Rel(dir, p)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, filepath.ToSlash(r))
	}
	slices.Sort(out)
	return out
}

// A directory job indexes what the walk lists, and a sync of the same
// directory then agrees with it: nothing added, changed or deleted —
// not even a document of an ignored file indexed on its own, which still
// exists. include_ignored plans the skipped files too.
func TestDirectorySyncAgreesOnIgnoredFiles(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	dir := filepath.Join(root, "proj")
	kept, skipped := ignoredTree(t, dir)
	s := stack.StartService(t, stack.ServiceConfig(t, root), true)

	resp := s.Do(t, http.MethodPost, "/tools/rag_index_directory", map[string]any{"directory_path": dir, "kb_name": "ignored"})
	if resp.Status != http.StatusAccepted {
		t.Fatalf("index directory: %d %s", resp.Status, resp.Body)
	}
	id, _ := resp.JSON["job_id"].(string)
	job := s.WaitJob(t, id, 2*time.Minute)
	var res ragd.DirectoryResult
	if job.Status != ragd.JobCompleted || json.Unmarshal(job.Result, &res) != nil || res.FilesIndexed != len(kept) {
		var files []string
		for _, c := range job.Children {
			files = append(files, c.FilePath)
		}
		t.Fatalf("directory job %s indexed %d files, want %d: %q", job.Status, res.FilesIndexed, len(kept), rel(t, dir, files))
	}
	// A file the walk skips, indexed by name: prune must leave it be.
	single := filepath.Join(dir, "node_modules/pkg/README.md")
	resp = s.Do(t, http.MethodPost, "/tools/rag_index", map[string]any{"file_path": single, "kb_name": "ignored", "wait": true})
	if resp.Status != http.StatusOK && resp.Status != http.StatusAccepted {
		t.Fatalf("index file: %d %s", resp.Status, resp.Body)
	}
	if id, _ := resp.JSON["job_id"].(string); id != "" {
		s.WaitJob(t, id, time.Minute)
	}

	p := dryRun(t, s, map[string]any{"directory_path": dir, "kb_name": "ignored"})
	if len(p.Added)+len(p.Changed)+len(p.Deleted) != 0 || p.Unchanged != len(kept) {
		t.Fatalf("sync after ingest plans %+v, want %d unchanged and nothing else", p, len(kept))
	}
	p = dryRun(t, s, map[string]any{"directory_path": dir, "kb_name": "ignored", "include_ignored": true})
	wantAdded := slices.DeleteFunc(slices.Clone(skipped), func(f string) bool { return f == "node_modules/pkg/README.md" })
	if got := rel(t, dir, p.Added); !slices.Equal(got, wantAdded) || p.Unchanged != len(kept)+1 {
		t.Fatalf("include_ignored plans added %q (unchanged %d), want %q (%d)", got, p.Unchanged, wantAdded, len(kept)+1)
	}
	// The job walks as its plan did: it indexes the skipped files.
	resp = s.Do(t, http.MethodPost, "/tools/rag_index_directory", map[string]any{"directory_path": dir, "kb_name": "ignored",
		"sync": true, "include_ignored": true})
	if resp.Status != http.StatusAccepted {
		t.Fatalf("index directory with include_ignored: %d %s", resp.Status, resp.Body)
	}
	id, _ = resp.JSON["job_id"].(string)
	job = s.WaitJob(t, id, 2*time.Minute)
	res = ragd.DirectoryResult{}
	if job.Status != ragd.JobCompleted || json.Unmarshal(job.Result, &res) != nil || res.FilesIndexed != len(wantAdded) {
		t.Fatalf("include_ignored job %s indexed %d files, want %d", job.Status, res.FilesIndexed, len(wantAdded))
	}
}
