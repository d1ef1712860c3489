package cli_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"ragd"
	"ragd/internal/cli"
	"ragd/internal/retrieval/answer"
	"ragd/internal/testkit/stack"
	"ragd/wire"
)

// ingestOutput is ragd ingest --json.
type ingestOutput struct {
	Server string              `json:"server"`
	Jobs   []cli.IngestSummary `json:"jobs"`
}

// library is a small corpus: a directory inside the ingest roots and a
// file outside them.
type corpus struct {
	root, dir, outside string
}

func newCorpus(t *testing.T) corpus {
	root := t.TempDir()
	c := corpus{root: root, dir: filepath.Join(root, "animals"), outside: filepath.Join(t.TempDir(), "field-notes.md")}
	writeFile(t, filepath.Join(c.dir, "otters.md"), "# Otters\n\nSea otters hold hands while they sleep, so that the current does not carry them apart.\n")
	writeFile(t, filepath.Join(c.dir, "deep", "tambora.md"), "# Volcanoes\n\nThe caldera of Mount Tambora collapsed in the great eruption of 1815.\n")
	writeFile(t, c.outside, "# Field notes\n\nThe quokka of Rottnest Island is a small marsupial that seems to smile at visitors.\n")
	return c
}

// The client against a whole ragd: ingest in place and by upload, search,
// ask, jobs, docs, cancel, export and import, rm.
func TestClientAgainstStack(t *testing.T) {
	t.Parallel()
	c := newCorpus(t)
	s := stack.Start(t, stack.Config(t, c.root), true)

	var ing ingestOutput
	t.Run("ingest", func(t *testing.T) { ing = ingestCorpus(t, s.URL, c) })
	t.Run("search", func(t *testing.T) {
		r := run(t, s.URL, "search", "--json", "quokka", "Rottnest", "--kb", "zoo", "--top-k", "3")
		var resp wire.SearchResponse
		decode(t, r, &resp)
		if r.code != 0 || resp.Count == 0 || !strings.Contains(resp.Results[0].Text, "quokka") ||
			resp.Results[0].Source != "upload://zoo/field-notes.md" {
			t.Fatalf("search: %+v\n%s", resp, r)
		}
		human := run(t, s.URL, "search", "sea otters sleep", "--kb", "zoo")
		if human.code != 0 || !strings.HasPrefix(human.stdout, "[1] ") || !strings.Contains(human.stdout, "hold hands") {
			t.Fatalf("search for people:\n%s", human)
		}
	})
	t.Run("ask", func(t *testing.T) { askNumbered(t, s.URL) })
	t.Run("jobs", func(t *testing.T) { listJobs(t, s.URL, ing) })
	t.Run("cancel finished job", func(t *testing.T) {
		id := ing.Jobs[0].JobIDs[0]
		r := run(t, s.URL, "cancel", id)
		if r.code != cli.ExitFailed || r.stdout != "" {
			t.Fatalf("cancel of a completed job:\n%s", r)
		}
		oneLine(t, r, "job "+id+" is already completed (409 Conflict)")
	})
	t.Run("docs", func(t *testing.T) {
		var list wire.DocumentList
		r := run(t, s.URL, "docs", "--kb", "zoo", "--json")
		decode(t, r, &list)
		sources := []string{}
		for _, d := range list.Documents {
			sources = append(sources, d.Source)
		}
		if r.code != 0 || list.Count != 3 || list.Total != 3 || !slices.Contains(sources, "upload://zoo/field-notes.md") ||
			!slices.Contains(sources, "file://"+filepath.Join(c.dir, "deep", "tambora.md")) {
			t.Fatalf("docs: %v\n%s", sources, r)
		}
	})
	t.Run("export and import", func(t *testing.T) { roundTrip(t, s.URL) })
	t.Run("rm", func(t *testing.T) {
		doc := ing.Jobs[1].DocumentIDs[0]
		r := run(t, s.URL, "rm", doc, "--kb", "zoo")
		if r.code != 0 || !strings.Contains(r.stdout, "deleted "+doc+" from zoo") {
			t.Fatalf("rm:\n%s", r)
		}
		var list wire.DocumentList
		decode(t, run(t, s.URL, "--json", "docs", "--kb", "zoo"), &list)
		if list.Count != 2 {
			t.Fatalf("after rm, %d documents: %+v", list.Count, list.Documents)
		}
		again := run(t, s.URL, "rm", doc, "--kb", "zoo")
		if again.code != cli.ExitFailed {
			t.Fatalf("rm of a deleted document:\n%s", again)
		}
		oneLine(t, again, "not found")
	})
}

// ingestCorpus ingests the directory in place and the outside file by
// upload, with --json, and checks what each reports.
func ingestCorpus(t *testing.T, server string, c corpus) ingestOutput {
	r := run(t, server, "ingest", "--json", c.dir, c.outside, "--kb", "zoo", "--tags", "field,2026")
	var out ingestOutput
	decode(t, r, &out)
	if r.code != 0 || out.Server != server || len(out.Jobs) != 2 {
		t.Fatalf("ingest: %+v\n%s", out, r)
	}
	dir, file := out.Jobs[0], out.Jobs[1]
	if dir.Mode != cli.ModeInPlace || dir.Status != "completed" || dir.FilesIndexed != 2 || dir.Chunks < 2 ||
		dir.KBName != "zoo" || len(dir.JobIDs) != 1 || dir.Path != c.dir {
		t.Errorf("directory inside the roots: %+v", dir)
	}
	if file.Mode != cli.ModeUpload || file.Status != "completed" || file.FilesIndexed != 1 || file.Chunks < 1 ||
		len(file.JobIDs) != 1 || len(file.DocumentIDs) != 1 {
		t.Errorf("file outside the roots: %+v", file)
	}
	// Again: nothing changed, so nothing is indexed; the upload is a dedup
	// hit. The summaries are the last lines, after any progress line.
	again := run(t, server, "ingest", c.outside, c.dir, "--kb", "zoo", "--sync")
	lines := strings.Split(strings.TrimSpace(again.stdout), "\n")
	lines = lines[max(len(lines)-2, 0):]
	if again.code != 0 || len(lines) != 2 || !strings.Contains(again.stderr, "--sync applies to directories") ||
		!strings.HasPrefix(lines[0], c.outside+" (uploaded to zoo): completed: 0 indexed, 1 unchanged, 0 failed, 0 deleted, 0 chunks") ||
		!strings.HasPrefix(lines[1], c.dir+" (in place to zoo): completed: 0 indexed, 2 unchanged, 0 failed, 0 deleted, 0 chunks") {
		t.Errorf("ingest again (plain output, summaries only):\n%s", again)
	}
	return out
}

// askNumbered checks that ask prints the answer and its numbered sources.
func askNumbered(t *testing.T, server string) {
	r := run(t, server, "ask", "what", "does", "the", "quokka", "do", "--kb", "zoo")
	if r.code != 0 {
		t.Fatalf("ask:\n%s", r)
	}
	answerText, sources, ok := strings.Cut(r.stdout, "\nSources:\n")
	if !ok || !strings.Contains(answerText, "smile") {
		t.Fatalf("ask: no answer and sources:\n%s", r)
	}
	lines := strings.Split(strings.TrimSpace(sources), "\n")
	if !strings.HasPrefix(lines[0], "[1] upload://zoo/field-notes.md, Field notes") {
		t.Errorf("first source: %q", lines[0])
	}
	for i, l := range lines {
		if l == "" {
			break // the note after the sources
		}
		if want := "[" + string(rune('1'+i)) + "] "; !strings.HasPrefix(l, want) {
			t.Errorf("source %d is not numbered %q: %q", i+1, want, l)
		}
	}
	var resp answer.QueryResponse
	decode(t, run(t, server, "ask", "--json", "quokka", "--kb", "zoo"), &resp)
	if len(resp.Sources) == 0 || resp.Route == "" {
		t.Errorf("ask --json: %+v", resp)
	}
}

// listJobs checks jobs --json and that --watch ends once all have ended.
func listJobs(t *testing.T, server string, ing ingestOutput) {
	var list wire.JobList
	r := run(t, server, "jobs", "--json", "--kb", "zoo")
	decode(t, r, &list)
	ids := []string{}
	for _, j := range list.Jobs {
		ids = append(ids, j.ID)
		if !j.Status.Terminal() {
			t.Errorf("job %s still %s", j.ID, j.Status)
		}
	}
	for _, s := range ing.Jobs {
		if !slices.Contains(ids, s.JobIDs[0]) {
			t.Errorf("job %s of %s not listed: %v", s.JobIDs[0], s.Path, ids)
		}
	}
	if r.code != 0 || list.Count != len(list.Jobs) || list.Total < 2 {
		t.Fatalf("jobs: %+v\n%s", list, r)
	}
	table := run(t, server, "jobs", "--kb", "zoo", "--status", "completed")
	if table.code != 0 || !strings.HasPrefix(table.stdout, "JOB ") || !strings.Contains(table.stdout, ing.Jobs[0].JobIDs[0]) {
		t.Errorf("jobs table:\n%s", table)
	}
	watch := run(t, server, "jobs", "--watch", "--json", "--kb", "zoo")
	var watched wire.JobList
	decode(t, watch, &watched)
	if watch.code != 0 || watched.Total != list.Total {
		t.Errorf("jobs --watch with every job ended: %+v\n%s", watched, watch)
	}
	if bad := run(t, server, "jobs", "--status", "sleeping"); bad.code != cli.ExitUsage {
		t.Errorf("jobs --status sleeping:\n%s", bad)
	}
}

// roundTrip exports the namespace and imports the archive into another.
func roundTrip(t *testing.T, server string) {
	file := filepath.Join(t.TempDir(), "zoo.ragd.gz")
	r := run(t, server, "export", "zoo", file)
	raw, err := os.ReadFile(file)
	if r.code != 0 || err != nil || len(raw) < 2 || raw[0] != 0x1f || raw[1] != 0x8b ||
		!strings.Contains(r.stdout, "exported zoo to "+file) {
		t.Fatalf("export (%v, %d bytes):\n%s", err, len(raw), r)
	}
	var imp cli.Imported
	ri := run(t, server, "import", "zoo2", file, "--json")
	decode(t, ri, &imp)
	if ri.code != 0 || imp.Job == nil || imp.Job.Status != ragd.JobCompleted || imp.Result == nil ||
		imp.Result.DocumentsImported != 3 || imp.Result.FromKBName != "zoo" || imp.Upload.Documents != 3 {
		t.Fatalf("import: %+v\n%s", imp, ri)
	}
	var list wire.DocumentList
	decode(t, run(t, server, "docs", "--kb", "zoo2", "--json"), &list)
	if list.Count != 3 {
		t.Fatalf("imported namespace holds %d documents", list.Count)
	}
	var found wire.SearchResponse
	decode(t, run(t, server, "search", "--json", "Tambora caldera", "--kb", "zoo2"), &found)
	if found.Count == 0 || !strings.Contains(found.Results[0].Text, "Tambora") {
		t.Fatalf("search in the imported namespace: %+v", found)
	}
	// An export of a namespace without documents is the server's 404, and
	// leaves no file behind.
	missing := filepath.Join(t.TempDir(), "none.gz")
	none := run(t, server, "export", "empty", missing)
	if _, err := os.Stat(missing); none.code != cli.ExitFailed || err == nil {
		t.Fatalf("export of an empty namespace (%v):\n%s", err, none)
	}
	oneLine(t, none, "404")
	if bad := run(t, server, "import", "zoo3", filepath.Join(t.TempDir(), "absent.gz")); bad.code != cli.ExitUsage {
		t.Errorf("import of a missing file:\n%s", bad)
	}
}
