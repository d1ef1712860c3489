package procbench

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"ragd"
	"ragd/internal/testkit/gitserver"
)

// gitFiles is how many real Markdown files the benchmark's repository
// holds.
const gitFiles = 2000

// BenchmarkProcessGitSync measures a git source's sync by ragd running as
// its own process, the repository served over smart HTTP (`git
// http-backend`) on loopback: 2,000 Markdown files, sections of the
// module cache's real ones, a fresh namespace each round. Its floor is
// the same ragd indexing the same files as a directory (POST
// /tools/rag_index_directory): the same reading, chunking, embedding and
// writing without the fetch and the tree walk; rounds alternate. Then,
// after a commit changing one file, a re-sync (a tree diff: one file
// read, asserted) against a directory sync of the same change (every
// file's size and time compared). Target: a first sync ≥ 0.8× the
// directory's rate.
func BenchmarkProcessGitSync(b *testing.B) {
	r := startRagd(b, map[string]string{"RAGD_INGEST_ALLOW_PRIVATE_URLS": "true"})
	repo := gitserver.NewRepo(b, "docs.git")
	dir := filepath.Join(r.Root, "docs")
	for i, text := range sections(b, gitFiles) {
		name := fmt.Sprintf("%04d.md", i)
		repo.Write(name, text)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	repo.Commit("the corpus")
	url := gitserver.HTTP(b, repo)
	client := &http.Client{}
	rounds := syncRounds{what: "git sync", items: fmt.Sprintf("%d files", gitFiles), resync: "after a one-file commit"}
	for round := range max(b.N, 3) {
		kb := fmt.Sprintf("g%d", round)
		var src ragd.Source
		post(b, client, r.URL+"/sources", map[string]any{"kind": "git", "url": url, "kb_name": kb}, &src)
		gitTime, _ := timed(b, client, r.URL+"/sources/"+src.ID+"/sync", map[string]any{}, r.URL)
		dirTime, _ := timed(b, client, r.URL+"/tools/rag_index_directory",
			map[string]any{"directory_path": dir, "kb_name": "d" + kb, "sync": true}, r.URL)

		note := fmt.Sprintf("# Round %d\n\nThe note changed in round %d.\n", round, round)
		repo.Write("0000.md", note)
		repo.Commit(fmt.Sprintf("round %d", round))
		if err := os.WriteFile(filepath.Join(dir, "0000.md"), []byte(note), 0o644); err != nil {
			b.Fatal(err)
		}
		reGit, res := timed(b, client, r.URL+"/sources/"+src.ID+"/sync", map[string]any{}, r.URL)
		if res.FilesChanged != 1 || res.FilesAdded != 0 || res.FilesUnchanged != gitFiles-1 {
			b.Fatalf("the re-sync after a one-file commit: %+v; want 1 file read, %d unchanged", res, gitFiles-1)
		}
		reDir, _ := timed(b, client, r.URL+"/tools/rag_index_directory",
			map[string]any{"directory_path": dir, "kb_name": "d" + kb, "sync": true}, r.URL)
		rounds.add(gitTime, dirTime, reGit, reDir)
	}
	rounds.report(b, "git source sync over smart HTTP, ragd's own process", "git/dir-ratio")
}

// timed posts a request that starts a job and returns how long until the
// job completed, asked every 5 ms so that a re-sync of a few hundred
// milliseconds is resolved, and the job's result.
func timed(b *testing.B, client *http.Client, url string, body map[string]any, base string) (time.Duration, ragd.DirectoryResult) {
	b.Helper()
	start := time.Now()
	var job struct {
		JobID string `json:"job_id"`
	}
	post(b, client, url, body, &job)
	if job.JobID == "" {
		b.Fatalf("POST %s started no job", url)
	}
	res := waitJobEvery(b, client, base, job.JobID, 5*time.Millisecond)
	return time.Since(start), res
}

// sections are n distinct Markdown documents cut from the module cache's
// real Markdown files at their level-2 headings, each under its file's
// title: the cache holds fewer than 2,000 whole files on a fresh machine.
// A section shorter than 300 bytes joins the next one.
func sections(b *testing.B, n int) []string {
	var out []string
	for _, f := range markdownFiles(b) {
		raw, err := os.ReadFile(f)
		if err != nil {
			b.Fatal(err)
		}
		parts := strings.Split(string(raw), "\n## ")
		title := fmt.Sprintf("# %s\n\n", filepath.Base(filepath.Dir(f)))
		pending := ""
		for i, p := range parts {
			if i > 0 {
				p = "## " + p
			}
			if pending += p; len(pending) < 300 {
				continue
			}
			if out = append(out, title+pending+"\n"); len(out) == n {
				return out
			}
			pending = ""
		}
	}
	b.Fatalf("only %d Markdown sections in the module cache (run go mod download)", len(out))
	return nil
}

// syncRounds are a source benchmark's rounds: each a first sync and a
// re-sync against the directory doing the same, as rates (directory time
// over source time).
type syncRounds struct {
	what, items, resync string
	firsts, resyncs     []float64
}

// add records a round's four times and prints them.
func (r *syncRounds) add(first, dirFirst, again, dirAgain time.Duration) {
	r.firsts = append(r.firsts, dirFirst.Seconds()/first.Seconds())
	r.resyncs = append(r.resyncs, dirAgain.Seconds()/again.Seconds())
	ms := func(d time.Duration) time.Duration { return d.Round(time.Millisecond) }
	fmt.Printf("%s, %s, round %d: first sync %s vs directory %s (%.2f×); %s %s vs directory sync %s (%.2f×)\n",
		r.what, r.items, len(r.firsts)-1, ms(first), ms(dirFirst), r.firsts[len(r.firsts)-1],
		r.resync, ms(again), ms(dirAgain), r.resyncs[len(r.resyncs)-1])
}

// report prints the medians with their ranges and reports the first
// sync's median as metric (target ≥ 0.8).
func (r *syncRounds) report(b *testing.B, title, metric string) {
	fmt.Printf("%s: first sync / directory ingest rate %s (target ≥ 0.80); %s re-sync / directory sync rate %s\n",
		title, spread(r.firsts), r.resync, spread(r.resyncs))
	b.ReportMetric(median(r.firsts), metric)
	b.ReportMetric(median(r.resyncs), "resync/dirsync-ratio")
}
