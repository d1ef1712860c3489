package switchover

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"ragd"
	"ragd/internal/app"
	"ragd/internal/platform/config"
	"ragd/internal/testkit/stack"
)

// A cancelled switch drops the collection it was building and leaves the
// old one live, with what was ingested meanwhile.
func TestCancelledSwitchLeavesTheOldLive(t *testing.T) {
	f := newFixture(t, 6)
	id := f.start(t, "alt")
	f.alt.Pause() // the copy, which waits for every process first, cannot finish
	waitFor(t, 30*time.Second, "the switch running", func() bool {
		st := f.status(t, f.s)
		return st.Switch != nil && st.Switch.Status == ragd.JobActive
	})
	next := f.status(t, f.s).Switch
	recorded, err := f.s.Live.Records().Load(context.Background())
	if err != nil || recorded.Switch == nil {
		t.Fatalf("recorded switch: %+v, %v", recorded, err)
	}
	newCollection := recorded.Switch.To.Collection
	if r := f.s.Do(t, http.MethodPost, "/jobs/"+id+"/cancel", nil); r.Status != http.StatusOK {
		t.Fatalf("cancel: %d %s", r.Status, r.Body)
	}
	f.alt.Resume()
	if job := f.s.WaitJob(t, id, time.Minute); job.Status != ragd.JobCancelled {
		t.Fatalf("cancelled switch: %+v", job)
	}
	st := f.status(t, f.s)
	if st.Live.Name != "default" || st.Switch != nil {
		t.Fatalf("after the cancel: %+v (switch %+v)", st, st.Switch)
	}
	waitFor(t, 10*time.Second, "the half-built collection dropped", func() bool { return !collectionExists(t, newCollection) })
	if !collectionExists(t, f.cfg.Weaviate.Collection) {
		t.Fatal("the old collection went")
	}
	if got, err := search(f.s, t, "south", topics[2], "vector"); err != nil || !slices.Contains(got, f.docs["south"][2]) {
		t.Fatalf("search after the cancel: %q, %v", got, err)
	}
	if next == nil || next.To.Name != "alt" {
		t.Fatalf("switch before the cancel: %+v", next)
	}
	// Cancelled, the same switch may be asked for again.
	again := f.start(t, "alt")
	if job := f.s.WaitJob(t, again, 2*time.Minute); job.Status != ragd.JobCompleted {
		t.Fatalf("switch after a cancel: %+v", job)
	}
}

// Rate limits (429 with Retry-After) and an outage of the new embedder
// slow the switch without failing it: GET /embedder shows the error while
// it waits, searches go on from the old embedder, and the job completes
// on its first run.
func TestSwitchRidesOutEmbedderFaults(t *testing.T) {
	f := newFixture(t, 8)
	id := f.start(t, "alt")
	f.alt.RateLimit(6, 1)
	f.alt.SetDown(true)
	waitFor(t, 30*time.Second, "the outage shown", func() bool {
		st := f.status(t, f.s)
		return st.Switch != nil && st.Switch.Error != ""
	})
	shown := f.status(t, f.s).Switch.Error
	for _, ns := range []string{"north", "south"} {
		if got, err := search(f.s, t, ns, topics[1], "vector"); err != nil || !slices.Contains(got, f.docs[ns][1]) {
			t.Fatalf("search in %s during the outage: %q, %v", ns, got, err)
		}
	}
	time.Sleep(2 * time.Second)
	f.alt.SetDown(false)
	job := f.s.WaitJob(t, id, 2*time.Minute)
	if job.Status != ragd.JobCompleted || job.Retried != 0 {
		t.Fatalf("switch through faults: %+v", job)
	}
	_, _, refused := f.alt.Counts()
	if refused < 6 {
		t.Fatalf("the stand-in refused %d requests, want the 429s and the outage's", refused)
	}
	if !strings.Contains(shown, "503") && !strings.Contains(shown, "429") && !strings.Contains(shown, "unavailable") {
		t.Errorf("error shown during the outage: %q", shown)
	}
	if st := f.status(t, f.s); st.Live.Name != "alt" || st.Switch != nil {
		t.Fatalf("after the faults: %+v", st)
	}
}

// A worker stopped mid-switch leaves the job to the next one, which
// resumes the copy from its checkpoint; a second API replica cuts over
// too; and a ragd started later without the live embedder in its config
// refuses to start, naming it.
func TestSwitchResumesAfterRestart(t *testing.T) {
	f := newFixture(t, 16)
	replica := stack.Start(t, f.cfg, false)
	f.alt.SetDelay(150 * time.Millisecond)
	id := f.start(t, "alt")
	waitFor(t, 30*time.Second, "the copy under way", func() bool {
		st := f.status(t, f.s)
		return st.Switch != nil && st.Switch.Progress.Done >= 8
	})
	f.alt.Pause()
	done := f.status(t, f.s).Switch.Progress.Done
	_, textsAtStop, _ := f.alt.Counts()
	// Held, the run outlasts the worker's shutdown grace: the worker
	// cancels it and puts its task back.
	f.s.Worker.Shutdown()
	f.alt.Resume()
	st := f.status(t, f.s)
	if st.Switch == nil || st.Switch.Progress.Done < done || st.Live.Name != "default" {
		t.Fatalf("after the worker stopped: %+v", st)
	}
	next := stack.Start(t, f.cfg, true)
	job := next.WaitJob(t, id, 2*time.Minute)
	if job.Status != ragd.JobCompleted {
		t.Fatalf("resumed switch: %+v", job)
	}
	_, textsAtEnd, _ := f.alt.Counts()
	total := st.Switch.Progress.Total
	if redone := textsAtEnd - textsAtStop - (total - st.Switch.Progress.Done); redone > 16 {
		t.Errorf("after the restart %d texts were embedded again beyond the %d left: the copy did not resume", redone, total-st.Switch.Progress.Done)
	}
	for _, s := range []*stack.Stack{f.s, replica, next} {
		s := s
		waitFor(t, 3*time.Second, "every replica following the cutover", func() bool {
			return s.Live.Current().Live.Target.Name == "alt"
		})
		if got, err := search(s, t, "north", topics[3], "vector"); err != nil || !slices.Contains(got, f.docs["north"][3]) {
			t.Fatalf("search on a replica after the cutover: %q, %v", got, err)
		}
	}
	cfg := f.cfg
	cfg.Embedders = map[string]config.Embed{}
	if _, err := app.New(context.Background(), cfg, stack.Logger(t)); err == nil || !strings.Contains(err.Error(), `"alt"`) {
		t.Fatalf("start without the live embedder in the config: %v", err)
	}
}

// Bad requests are refused before any job: an unknown name (404), the
// live embedder (409), a second switch while one runs (409), an embedder
// that does not answer (422), a namespace-limited key (403), an empty or
// non-JSON body (422, 415).
func TestSwitchRefusals(t *testing.T) {
	cfg := stack.Config(t)
	alt := newStandin(t)
	cfg.Embedders = map[string]config.Embed{"alt": {Provider: "openai", BaseURL: alt.URL, Model: alt.Model}}
	cfg.Auth.Mode = "static-token"
	cfg.Auth.Keys = []config.AuthKey{{Name: "ops", Token: "ops-token", Groups: []string{"*"}}, {Name: "team", Token: "team-token", Namespaces: []string{"north"}, Groups: []string{"*"}}}
	s := stack.Start(t, cfg, false)
	post := func(token, body, contentType string) (int, string) {
		req, _ := http.NewRequest(http.MethodPost, s.URL+"/embedder/switch", bytes.NewBufferString(body))
		req.Header.Set("Authorization", "Bearer "+token)
		req.Header.Set("Content-Type", contentType)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	const js = "application/json"
	for _, c := range []struct {
		token, body, ct string
		want            int
		says            string
	}{
		{"team-token", `{"to":"alt"}`, js, 403, `\"team\" is limited to namespaces`},
		{"ops-token", `{"to":"nomic"}`, js, 404, `no embedder \"nomic\": the config names default, alt`},
		{"ops-token", `{"to":"default"}`, js, 409, `embedder \"default\" is live already`},
		{"ops-token", `{}`, js, 422, "to names the embedder to switch to"},
		{"ops-token", `{"to":"alt"}`, "text/plain", 415, "application/json"},
	} {
		if got, body := post(c.token, c.body, c.ct); got != c.want || !strings.Contains(body, c.says) {
			t.Errorf("%s %s: %d %s, want %d saying %s", c.token, c.body, got, body, c.want, c.says)
		}
	}
	alt.SetDown(true)
	if got, body := post("ops-token", `{"to":"alt"}`, js); got != 422 || !strings.Contains(body, "alt") {
		t.Errorf("an embedder that does not answer: %d %s, want 422 naming it", got, body)
	}
	alt.SetDown(false)
	if got, body := post("ops-token", `{"to":"alt"}`, js); got != 202 {
		t.Fatalf("switch: %d %s", got, body)
	}
	if got, body := post("ops-token", `{"to":"alt"}`, js); got != 409 || !strings.Contains(body, `a switch to \"alt\" is under way`) {
		t.Errorf("a second switch while one runs: %d %s, want 409 naming it", got, body)
	}
}
