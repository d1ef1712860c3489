package cli_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"ragd/internal/cli"
	"ragd/internal/testkit/stack"
	"ragd/wire"
)

// barFrame is mpb redrawing its bars: the cursor up over the last frame,
// and the screen erased below it.
var barFrame = regexp.MustCompile(`\x1b\[\d+A\x1b\[J`)

// On a terminal, ingest draws a live bar per path (redrawn in place) and
// ends with the summaries.
func TestProgressBarsOnTerminal(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	s := stack.Start(t, stack.Config(t, root), true)
	inside := stack.CopySpecDocs(t, filepath.Join(root, "godoc"))
	// The uploaded copies differ from the files in place: the same bytes
	// would be a duplicate of whichever was indexed first, and the
	// summary would count it unchanged.
	outside := stack.CopySpecDocs(t, filepath.Join(t.TempDir(), "upload"))
	for _, name := range stack.SpecDocs {
		f, err := os.OpenFile(filepath.Join(outside, name), os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		_, err = f.WriteString("\n\nThis copy was uploaded from outside the ingest roots.\n")
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			t.Fatal(err)
		}
	}

	r := runTTY(t, s.URL, "ingest", inside, outside, "--kb", "tty")
	if r.code != 0 {
		t.Fatalf("ingest on a terminal:\n%s", r)
	}
	frames := barFrame.FindAllStringIndex(r.stdout, -1)
	if len(frames) < 2 {
		t.Fatalf("%d bar redraws:\n%q", len(frames), r.stdout)
	}
	for _, want := range []string{"4/4 files", " chunks", inside, outside} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("no %q among the bar frames:\n%q", want, r.stdout)
		}
	}
	if !regexp.MustCompile(`\[[=>-]+\]`).MatchString(r.stdout) {
		t.Errorf("no bar drawn:\n%q", r.stdout)
	}
	tail := r.stdout[frames[len(frames)-1][1]:]
	if !strings.Contains(r.stdout, inside+" (in place to tty): completed: 4 indexed") ||
		!strings.Contains(tail, outside+" (uploaded to tty): completed: 4 indexed") {
		t.Errorf("no summaries after the last frame:\n%q", tail)
	}
}

// Without a terminal there is no bar: plain lines, each when its counts
// have changed and at most once per second, then the summaries.
func TestPlainProgressLines(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	s := stack.Start(t, stack.Config(t, root), true)
	dir := stack.CopySpecDocs(t, filepath.Join(root, "godoc"))
	begin := time.Now()
	r := run(t, s.URL, "ingest", dir, "--kb", "plain")
	took := time.Since(begin)
	if r.code != 0 || strings.ContainsAny(r.stdout, "\x1b\r") {
		t.Fatalf("ingest without a terminal:\n%q", r.stdout)
	}
	lines := strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n")
	progress := regexp.MustCompile(`^` + regexp.QuoteMeta(dir) + `: (queued · )?(\d+/)?\d+ files · \d+ chunks( · [\d.]+ files/s)?( · ETA \S+)?$`)
	for _, l := range lines[:len(lines)-1] {
		if !progress.MatchString(l) {
			t.Errorf("not a progress line: %q", l)
		}
	}
	if n := len(lines) - 1; float64(n) > took.Seconds()+1 {
		t.Errorf("%d progress lines in %s: more than one a second", n, took)
	}
	if last := lines[len(lines)-1]; !strings.HasPrefix(last, dir+" (in place to plain): completed: 4 indexed, 0 unchanged, 0 failed, 0 deleted, ") {
		t.Errorf("summary: %q", last)
	}
}

// With no worker a job stays queued: the plain line says so once; an
// interrupt stops following (exit 130, the job goes on), jobs --watch
// follows it until it is cancelled, and cancel of a live job succeeds.
func TestInterruptWatchAndCancel(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	s := stack.Start(t, stack.Config(t, root), false)
	dir := filepath.Join(root, "notes")
	writeFile(t, filepath.Join(dir, "a.md"), "# A\n\nNotes that no worker will ever read.")

	ing := start(t, s.URL, "ingest", dir, "--kb", "idle")
	ing.waitFor(t, dir+": queued · 0 files · 0 chunks\n", time.Minute)
	if err := ing.cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	r := ing.wait(t, time.Minute)
	if r.code != cli.ExitInterrupted || !strings.Contains(r.stderr, "interrupted") ||
		strings.Count(r.stdout, "queued") != 1 || !strings.Contains(r.stdout, dir+" (in place to idle): failed") {
		t.Fatalf("interrupted ingest:\n%s", r)
	}
	var list wire.JobList
	decode(t, run(t, s.URL, "jobs", "--json", "--kb", "idle"), &list)
	if len(list.Jobs) != 1 || list.Jobs[0].Status != "queued" {
		t.Fatalf("the job after the interrupt: %+v", list.Jobs)
	}
	id := list.Jobs[0].ID

	watch := start(t, s.URL, "jobs", "--watch", "--kb", "idle", "--interval", "200ms")
	watch.waitFor(t, "queued", time.Minute)
	if c := run(t, s.URL, "cancel", id); c.code != 0 || c.stdout != "job "+id+" cancelled\n" {
		t.Fatalf("cancel of a queued job:\n%s", c)
	}
	w := watch.wait(t, time.Minute)
	if w.code != 0 || !strings.Contains(w.stdout, "cancelled") || strings.Count(w.stdout, "JOB ") < 2 ||
		strings.ContainsAny(w.stdout, "\x1b\r") {
		t.Fatalf("jobs --watch:\n%s", w)
	}
}
