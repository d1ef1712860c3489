// Package chaos kills parts of a whole ragd cluster under load: three
// Weaviate nodes (replication factor 3, QUORUM), a Redis primary, replica
// and three sentinels, two `ragd serve` and three `ragd worker` processes
// built from cmd/ragd, all on loopback ports of its own, never a running
// dev stack's. Pass and fail are on counts, never on timings.
package chaos

import (
	"fmt"
	"net/http"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"ragd"
	"ragd/internal/testkit/sentinel"
	"ragd/internal/testkit/testenv"
)

// A steady load of searches (a client that tries the other API replica on
// connection errors only) and a directory ingest in a namespace of its
// own per kill; each namespace's chunk count must equal a clean run's:
//
//  1. a Weaviate node SIGKILLed → 0 failed searches, the ingest completes;
//  2. the node restarted → every node holds every object (consistency ONE);
//  3. a worker SIGKILLed while it runs a task, then an API replica →
//     the task finishes on another worker, every search is answered;
//  4. the Redis primary SIGKILLed → a replica is promoted, no job lost.
func TestChaos(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the chaos test starts a whole cluster")
	}
	// What the cluster needs, checked before anything starts.
	testenv.WeaviateBinary(t)
	testenv.GloVePath(t)
	testenv.WordNetDir(t)
	for _, bin := range []string{"redis-server", "redis-sentinel"} {
		if _, err := exec.LookPath(bin); err != nil {
			t.Fatalf("%s is not on PATH: install Debian's redis-server and redis-sentinel (make test does)", bin)
		}
	}
	dir := t.TempDir()
	built := make(chan error, 1)
	var bin string
	go func() {
		var err error
		bin, err = buildRagd(dir)
		built <- err
	}()
	c := testenv.StartClusterOn(t, weaviatePorts)
	set := sentinel.Start(t, redisPorts)
	if err := <-built; err != nil {
		t.Fatal(err)
	}
	root := corpus(t)
	config := writeConfig(t, dir, root, c, set)
	var urls []string
	var serves, procs []*proc
	for i, port := range apiPorts {
		urls = append(urls, fmt.Sprintf("http://127.0.0.1:%d", port))
		serves = append(serves, startRagd(t, bin, config, dir, fmt.Sprintf("serve%d", i+1),
			[]string{fmt.Sprintf("RAGD_HTTP_ADDR=127.0.0.1:%d", port)}, "serve"))
	}
	for i := range workers {
		procs = append(procs, startRagd(t, bin, config, dir, fmt.Sprintf("worker%d", i+1), nil, "worker"))
	}
	for i, s := range serves {
		waitHealthy(t, s, urls[i])
	}
	cl := newClient(urls...)

	clean := ingest(t, cl, root, "clean")
	cleanJob := waitJob(t, cl, clean, 3*time.Minute)
	files := completed(t, cleanJob)
	want := reported(cleanJob)
	t.Logf("clean run: %d files, %d chunks reported by the file jobs, %d counted by ragd", files, want, chunks(t, cl, "clean"))
	if want < 100 {
		t.Fatalf("the clean run stored %d chunks: too few for the kills to land mid-ingest", want)
	}
	r := &record{t: t, cl: cl, want: want, files: files, clean: perFile(cleanJob), kbs: []string{"clean"}, procs: procs}
	l := startLoad(cl, "clean", 3)
	defer l.stop()

	// 1. A Weaviate node (the first listed, which ragd tries first) dies.
	job := ingest(t, cl, root, "weaviate")
	waitProgress(t, cl, job, 1)
	s0, f0 := l.counts()
	c.Nodes[0].Kill(t)
	r.job("weaviate", waitJob(t, cl, job, 3*time.Minute))
	s1, f1 := l.counts()
	t.Logf("weaviate node1 SIGKILLed: searches sent %d, failed %d while it was down", s1-s0, f1-f0)

	// 2. It comes back and catches up by async replication.
	c.Restart(t, 0)
	counts, equal := converge(t, c, map[string]int{"clean": want, "weaviate": want}, 90*time.Second)
	t.Logf("node1 restarted: objects per node (consistency ONE) %v", counts)
	if !equal {
		t.Errorf("the nodes do not each hold the %d chunks of each namespace 90 s after node1 came back: %v", want, counts)
	}

	// 3. A worker dies mid-task, then an API replica.
	// A directory ingest may end before a worker's heartbeat shows it
	// busy: then it is counted like the others and another one starts.
	victim, kb := -1, ""
	for attempt := 1; victim < 0; attempt++ {
		if attempt > 3 {
			t.Fatal("3 directory ingests ended before a worker was seen running one of their tasks")
		}
		kb = fmt.Sprintf("worker%d", attempt)
		job = ingest(t, cl, root, kb)
		if victim = busyWorker(t, set, procs, cl, job, kb); victim < 0 {
			r.job(kb, waitJob(t, cl, job, time.Minute))
		}
	}
	procs[victim].kill()
	s2, f2 := l.counts()
	serves[0].kill()
	r.job(kb, waitJob(t, cl, job, 3*time.Minute))
	s3, f3 := l.counts()
	t.Logf("worker%d SIGKILLed while running a task, then serve1: searches sent %d, failed %d", victim+1, s3-s2, f3-f2)

	// 4. The Redis primary dies mid-ingest. (This step once found 2 chunks
	// missing: the stale-version cleanup's NotEqual filter matched chunks
	// of the version just written; see store.DeleteStale.)
	job = ingest(t, cl, root, "redis")
	waitProgress(t, cl, job, 1)
	old := set.KillPrimary(t)
	promoted := set.WaitPromoted(t, old, 60*time.Second)
	set.Restart(t, old) // back as a replica, so WAIT has one again
	r.job("redis", waitJob(t, cl, job, 4*time.Minute))
	l.stop()
	s4, f4 := l.counts()
	t.Logf("redis primary :%d SIGKILLed, :%d promoted: searches sent %d, failed %d", old, promoted, s4-s3, f4-f3)

	r.count(c)
	t.Logf("TOTAL requests sent %d, failed %d; jobs lost %d; duplicate chunks %d, missing chunks %d",
		s4, f4, r.lost, r.duplicates, r.missing)
	if f4 > 0 {
		t.Errorf("%d of %d searches failed; first: %v", f4, s4, l.firstErrors)
	}
	if r.lost > 0 || r.duplicates > 0 || r.missing > 0 {
		t.Errorf("jobs lost %d, duplicate chunks %d, missing chunks %d", r.lost, r.duplicates, r.missing)
	}
	for _, p := range append(serves[1:], procs...) {
		if p != procs[victim] && !p.running() {
			t.Errorf("%s exited unasked:\n%s", p.name, p.tail())
		}
	}
}

// record adds up the jobs lost and the chunks duplicated or missing over
// the chaos namespaces, against the clean run.
type record struct {
	t                         *testing.T
	cl                        *client
	want, files               int
	clean                     map[string]int
	kbs                       []string
	lost, duplicates, missing int
	procs                     []*proc // whose logs a short namespace's diagnosis reads
}

// count waits (at most 90 s, for async replication) until every node holds
// want objects of each namespace, then adds up what each node holds above
// want (duplicates) and below it (missing).
func (r *record) count(c *testenv.Cluster) {
	want := map[string]int{}
	for _, kb := range r.kbs {
		want[kb] = r.want
	}
	counts, _ := converge(r.t, c, want, 90*time.Second)
	for _, kb := range r.kbs {
		lo, hi := slices.Min(counts[kb]), slices.Max(counts[kb])
		r.duplicates += max(0, hi-r.want)
		r.missing += max(0, r.want-lo)
		if lo < r.want {
			diagnose(r.t, c, r.cl, kb, r.procs)
		}
		r.t.Logf("%s: objects per node (consistency ONE) %v, ragd counts %d, the file jobs reported %d",
			kb, counts[kb], chunks(r.t, r.cl, kb), r.want)
	}
}

// perFile maps each file of a directory job to the chunks its job reports.
func perFile(j ragd.Job) map[string]int {
	out := map[string]int{}
	for _, c := range j.Children {
		out[filepath.Base(c.FilePath)] = c.Chunks
	}
	return out
}

// reported sums the chunks a directory job's file jobs report.
func reported(j ragd.Job) int {
	n := 0
	for _, c := range j.Children {
		n += c.Chunks
	}
	return n
}

// job counts a chaos namespace's directory job: every file job that did
// not complete is lost, and its chunks are compared with the clean run's.
func (r *record) job(kb string, j ragd.Job) {
	lost := 0
	if j.Status != ragd.JobCompleted {
		lost++
		r.t.Errorf("%s: directory job %s: %s", kb, j.Status, j.Error)
	}
	done, runs := 0, 0
	for _, c := range j.Children {
		if c.Status == ragd.JobCompleted && c.Chunks > 0 {
			done++
		} else {
			r.t.Errorf("%s: file job %+v", kb, c)
		}
		if child, ok := r.cl.job(r.t, c.ID); ok {
			runs += child.Retried
		}
	}
	lost += r.files - done
	r.kbs = append(r.kbs, kb)
	for f, got := range perFile(j) {
		if got != r.clean[f] {
			r.t.Logf("%s: %s: %d chunks, clean run %d", kb, f, got, r.clean[f])
		}
	}
	r.lost += lost
	r.t.Logf("%s: %d of %d files completed (directory job retried %d, file jobs %d), %d chunks reported (clean run %d)",
		kb, done, r.files, j.Retried, runs, reported(j), r.want)
}

func ingest(t *testing.T, cl *client, root, kb string) string {
	t.Helper()
	var out struct {
		JobID string `json:"job_id"`
	}
	cl.must(t, http.MethodPost, "/tools/rag_index_directory",
		map[string]any{"directory_path": filepath.Join(root, "docs"), "kb_name": kb}, http.StatusAccepted, &out)
	return out.JobID
}

func waitJob(t *testing.T, cl *client, id string, within time.Duration) ragd.Job {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		j, ok := cl.job(t, id)
		if ok && j.Status.Terminal() {
			return j
		}
		if time.Now().After(deadline) {
			t.Fatalf("job %s not ended within %s: %+v", id, within, j)
		}
		time.Sleep(250 * time.Millisecond)
	}
}

// waitProgress waits until the directory job has finished n files, so a
// kill lands mid-ingest.
func waitProgress(t *testing.T, cl *client, id string, n int) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for time.Now().Before(deadline) {
		if j, ok := cl.job(t, id); ok && j.Progress.Done >= n {
			if j.Status.Terminal() {
				t.Fatalf("directory job ended before the kill: make the corpus bigger (%+v)", j.Progress)
			}
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("directory job %s did not reach %d files", id, n)
}

// completed fails unless the directory job and each file completed; it
// returns the number of files.
func completed(t *testing.T, j ragd.Job) int {
	t.Helper()
	if j.Status != ragd.JobCompleted || len(j.Children) == 0 {
		t.Fatalf("clean directory job %s (%d files): %s", j.Status, len(j.Children), j.Error)
	}
	for _, c := range j.Children {
		if c.Status != ragd.JobCompleted || c.Chunks == 0 {
			t.Fatalf("clean run: file job %+v", c)
		}
	}
	return len(j.Children)
}

// chunks is the namespace's chunk count as ragd reports it.
func chunks(t *testing.T, cl *client, kb string) int {
	t.Helper()
	var st struct {
		Statistics struct {
			Namespaces map[string]struct {
				Chunks int `json:"chunks"`
			} `json:"namespaces"`
		} `json:"statistics"`
	}
	cl.must(t, http.MethodGet, "/tools/rag_stats", nil, http.StatusOK, &st)
	return st.Statistics.Namespaces[kb].Chunks
}
