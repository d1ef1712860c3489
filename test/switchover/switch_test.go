package switchover

import (
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"ragd"
)

// A knowledge base of two namespaces, indexed with GloVe from files since
// deleted, switches to an embedder of another dimension under a steady
// search load: no search fails, a document ingested during the switch is
// found after it, the new embedder is live for searches, statistics and
// GET /embedder, and the old collection is gone. Then it switches back.
func TestSwitchUnderLoad(t *testing.T) {
	f := newFixture(t, 16)
	f.alt.SetDelay(100 * time.Millisecond)
	before := f.status(t, f.s)
	if before.Live.Name != "default" || before.Live.Dimension != 100 || before.Switch != nil {
		t.Fatalf("before the switch: %+v", before)
	}
	l := startLoad(t, f.s)
	id := f.start(t, "alt")
	waitFor(t, 30*time.Second, "the copy under way", func() bool {
		st := f.status(t, f.s)
		return st.Switch != nil && st.Switch.Progress.Done > 0
	})
	// Held, the copy cannot finish while a document is ingested (its
	// chunks go to both collections) and the state is read.
	f.alt.Pause()
	const late = "A late document about marzipan written while the switch ran."
	r := f.s.Do(t, http.MethodPost, "/tools/rag_index", map[string]any{"text": late, "kb_name": "north"})
	if r.Status != http.StatusAccepted {
		t.Fatalf("index during the switch: %d %s", r.Status, r.Body)
	}
	lateJob := r.JSON["job_id"].(string)
	gone := f.documentID(t, "south", topics[5])
	if r := f.s.Do(t, http.MethodDelete, "/documents/"+gone+"?kb_name=south", nil); r.Status != http.StatusOK {
		t.Fatalf("delete during the switch: %d %s", r.Status, r.Body)
	}
	mid := f.status(t, f.s)
	f.alt.Resume()
	if j := f.s.WaitJob(t, lateJob, time.Minute); j.Status != ragd.JobCompleted {
		t.Fatalf("the document ingested during the switch: %+v", j)
	}
	if mid.Switch == nil || mid.Switch.JobID != id || mid.Switch.To.Name != "alt" || mid.Switch.To.Dimension != altDims ||
		mid.Switch.Progress.Unit != "chunks" || mid.Switch.Progress.Total < 24 || mid.Live.Name != "default" {
		t.Fatalf("during the switch: %+v", mid)
	}
	job := f.s.WaitJob(t, id, 2*time.Minute)
	n, failures := l.end()
	if job.Status != ragd.JobCompleted {
		t.Fatalf("switch job: %+v", job)
	}
	if len(failures) > 0 {
		t.Fatalf("%d of %d searches failed during the switch, first: %s", len(failures), n, failures[0])
	}
	t.Logf("%d searches during the switch, none failed", n)

	after := f.status(t, f.s)
	if after.Live.Name != "alt" || after.Live.Dimension != altDims || after.Live.Model != "alt-embed" || after.Switch != nil {
		t.Fatalf("after the switch: %+v", after)
	}
	if collectionExists(t, f.cfg.Weaviate.Collection) || collectionExists(t, f.cfg.Weaviate.Collection+"Image") {
		t.Error("the old collection is still there")
	}
	for ns, texts := range f.docs {
		for i, text := range texts {
			topic := topics[i%len(topics)]
			if ns == "south" && i == 5 {
				continue // deleted during the switch
			}
			for _, mode := range []string{"keyword", "vector"} {
				got, err := search(f.s, t, ns, topic, mode)
				if err != nil || !slices.Contains(got, text) {
					t.Fatalf("%s search for %s in %s after the switch: %q, %v", mode, topic, ns, got, err)
				}
			}
		}
	}
	if got, err := search(f.s, t, "north", "marzipan", "vector"); err != nil || len(got) == 0 || got[0] != late {
		t.Fatalf("the document ingested during the switch: %q, %v", got, err)
	}
	if n := f.s.ChunkCount(t, "south", gone); n != 0 {
		t.Fatalf("the document deleted during the switch has %d chunks in the new collection", n)
	}
	stats := f.s.Do(t, http.MethodGet, "/tools/rag_stats", nil)
	if !strings.Contains(string(stats.Body), `"embedder":"openai:alt-embed"`) || !strings.Contains(string(stats.Body), `"dimension":48`) {
		t.Errorf("rag_stats after the switch: %s", stats.Body)
	}

	if header := exportHeader(t, f.s, "north"); !strings.Contains(header, `"name":"openai:alt-embed","dimension":48`) {
		t.Errorf("the export's header after the switch: %s", header)
	}

	back := f.start(t, "default")
	if job := f.s.WaitJob(t, back, 2*time.Minute); job.Status != ragd.JobCompleted {
		t.Fatalf("switch back: %+v", job)
	}
	if st := f.status(t, f.s); st.Live.Name != "default" || st.Live.Dimension != 100 {
		t.Fatalf("after switching back: %+v", st)
	}
	if got, err := search(f.s, t, "north", "marzipan", "keyword"); err != nil || len(got) == 0 || got[0] != late {
		t.Fatalf("after switching back: %q, %v", got, err)
	}
}
