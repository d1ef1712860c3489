package embeddersvc_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"testing"
	"time"

	"ragd"
	"ragd/internal/platform/config"
	"ragd/internal/testkit/stack"
	"ragd/internal/testkit/standin"
	"ragd/wire"
)

// The switch at the service level (under -short on memory, under make
// test on the real services): every chunk re-embedded into the new
// collection, the new embedder live, the documents found through it.
func TestEmbedderSwitchService(t *testing.T) {
	t.Parallel()
	cfg := stack.ServiceConfig(t)
	cfg.Cache.Enabled = false
	alt := standin.NewEmbeddings(t, "alt-embed", 16)
	cfg.Embedders = map[string]config.Embed{"alt": {Provider: "openai", BaseURL: alt.URL, Model: alt.Model, BatchSize: 2}}
	s := stack.StartService(t, cfg, true)
	words := []string{"puffins", "basalt", "lanterns", "saffron", "glaciers", "violins"}
	for i, w := range words {
		ns := []string{"north", "south"}[i%2]
		text := fmt.Sprintf("A note about %s, and %s alone.", w, w)
		if r := s.Do(t, http.MethodPost, "/tools/rag_index", map[string]any{"text": text, "kb_name": ns, "wait": true}); r.Status != http.StatusOK {
			t.Fatalf("index: %d %s", r.Status, r.Body)
		}
	}
	r := s.Do(t, http.MethodPost, "/embedder/switch", map[string]any{"to": "alt"})
	if r.Status != http.StatusAccepted {
		t.Fatalf("switch: %d %s", r.Status, r.Body)
	}
	if job := s.WaitJob(t, r.JSON["job_id"].(string), time.Minute); job.Status != ragd.JobCompleted || job.Progress.Done != len(words) {
		t.Fatalf("switch job: %+v", job)
	}
	var st wire.EmbedderStatus
	if err := json.Unmarshal(s.Do(t, http.MethodGet, "/embedder", nil).Body, &st); err != nil || st.Live.Name != "alt" || st.Live.Dimension != 16 || st.Switch != nil {
		t.Fatalf("after the switch: %+v, %v", st, err)
	}
	if _, texts, _ := alt.Counts(); texts < len(words) {
		t.Fatalf("the new embedder embedded %d texts, want every chunk's", texts)
	}
	for i, w := range words {
		ns := []string{"north", "south"}[i%2]
		var resp wire.SearchResponse
		r := s.Do(t, http.MethodPost, "/tools/rag_search", map[string]any{"query": w, "kb_name": ns, "mode": "vector", "top_k": 1})
		if err := json.Unmarshal(r.Body, &resp); err != nil || len(resp.Results) != 1 || resp.Results[0].Text != fmt.Sprintf("A note about %s, and %s alone.", w, w) {
			t.Fatalf("vector search for %s in %s after the switch: %d %s", w, ns, r.Status, r.Body)
		}
	}
}
