package api_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"ragd/internal/testkit/stack"
)

// gradingChat speaks the OpenAI chat-completions wire format (a stand-in for
// a hosted model): it answers each candidate request naming how many
// passages it saw, and grades candidates with fixed scores.
type gradingChat struct{ answers atomic.Int64 }

func (g *gradingChat) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Messages []struct{ Role, Content string } `json:"messages"`
	}
	_ = json.NewDecoder(r.Body).Decode(&req)
	content := ""
	if strings.Contains(req.Messages[0].Content, "You grade answers") {
		content = `{"scores": [3, 9, 5]}`
	} else {
		n := strings.Count(req.Messages[len(req.Messages)-1].Content, "\n[")
		content = fmt.Sprintf("Candidate %d saw %d passages [2].", g.answers.Add(1), n+1)
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{"choices": []any{map[string]any{"index": 0, "finish_reason": "stop",
		"message": map[string]any{"role": "assistant", "content": content}}}})
}

func TestRankedAnswersWithModel(t *testing.T) {
	t.Parallel()
	g := &gradingChat{}
	srv := httptest.NewServer(g)
	t.Cleanup(srv.Close)
	cfg := stack.Config(t)
	cfg.LLM.BaseURL, cfg.LLM.Model, cfg.LLM.Timeout = srv.URL+"/v1", "grader", 2*time.Second
	cfg.Answer.Candidates = 3
	cfg.Cache.Enabled = false
	s := stack.Start(t, cfg, true)
	for _, text := range []string{"Lighthouses guide ships with a lamp.", "The lighthouse lamp is a Fresnel lens.",
		"Lighthouse keepers trim the lamp wick.", "A lighthouse lamp turns every ten seconds."} {
		indexText(t, s, "default", text)
	}
	resp := s.Do(t, http.MethodPost, "/tools/rag_query", map[string]any{"query": "lighthouse lamp", "top_k": 4})
	var out struct {
		Answer, Route string
		Steps         []struct {
			Tool string
			Args map[string]any
		}
	}
	_ = json.Unmarshal(resp.Body, &out)
	if resp.Status != 200 || out.Route != "llm" || g.answers.Load() != 3 || len(out.Steps) != 1 || out.Steps[0].Tool != "rank" {
		t.Fatalf("ranked answer: %d %s", resp.Status, resp.Body)
	}
	// The grader scored candidate 2 highest; its [2] (second passage of its
	// subset, which lacks passage 2) is passage 3 overall.
	if out.Steps[0].Args["chosen"] != float64(1) || !strings.HasPrefix(out.Answer, "Candidate 2 saw") || !strings.HasSuffix(out.Answer, "[3].") {
		t.Fatalf("chosen candidate: %s", resp.Body)
	}
}
