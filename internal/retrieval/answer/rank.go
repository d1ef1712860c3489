package answer

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"ragd"
)

// Answer ranking (answer.candidates ≥ 2, off by default): several candidate
// answers, each from a different subset of the passages, and the best one
// kept. A passage that misleads one candidate is absent from another, so the
// pick is less at the mercy of one bad passage.

// subsets splits passage indexes into n overlapping subsets: subset i leaves
// out every n-th passage starting at i, so each keeps most of the context
// and each passage is missing from exactly one subset. The top passage is
// kept in every subset: it is the likeliest to hold the answer.
func subsets(count, n int) [][]int {
	out := make([][]int, n)
	for i := range n {
		for j := range count {
			if j == 0 || j%n != i {
				out[i] = append(out[i], j)
			}
		}
	}
	return out
}

var citation = regexp.MustCompile(`\[(\d+)\]`)

// renumber rewrites [n] citations of an answer written over subset (1-based
// within it) into citations of the full passage list.
func renumber(answer string, subset []int) string {
	return citation.ReplaceAllStringFunc(answer, func(m string) string {
		n, _ := strconv.Atoi(m[1 : len(m)-1])
		if n < 1 || n > len(subset) {
			return m
		}
		return "[" + strconv.Itoa(subset[n-1]+1) + "]"
	})
}

func selectPassages(passages []Passage, idx []int) []Passage {
	out := make([]Passage, len(idx))
	for i, j := range idx {
		out[i] = passages[j]
	}
	return out
}

// rankedGenerate asks the model for one answer per subset, then for a score
// of each (faithful to the passages, complete), and returns the best.
func (s *Service) rankedGenerate(ctx context.Context, query string, passages []Passage) (string, Step, error) {
	sets := subsets(len(passages), s.Candidates)
	var candidates []string
	for _, set := range sets {
		text, err := s.generate(ctx, s.LLM, query, selectPassages(passages, set), nil)
		if err != nil {
			return "", Step{}, err
		}
		candidates = append(candidates, renumber(strings.TrimSpace(text), set))
	}
	scores, err := s.scoreCandidates(ctx, query, passages, candidates)
	step := Step{Tool: "rank", Args: map[string]any{"candidates": len(candidates), "by": "model rubric"}, ResultCount: len(candidates)}
	if err != nil {
		// Unscored candidates are still answers: keep the first (full top passage set).
		step.Error = "scoring failed: " + s.publicError(ctx, "scoring", err)
		return candidates[0], step, nil
	}
	best := argmax(scores)
	step.Args["scores"], step.Args["chosen"] = scores, best
	return candidates[best], step, nil
}

func (s *Service) scoreCandidates(ctx context.Context, query string, passages []Passage, candidates []string) ([]float64, error) {
	var b strings.Builder
	b.WriteString("Question: " + query + "\n\nPassages:\n")
	for i, p := range passages {
		fmt.Fprintf(&b, "[%d] %s\n", i+1, truncate(strings.TrimSpace(p.Text), 1200))
	}
	b.WriteString("\nCandidate answers:\n")
	for i, c := range candidates {
		fmt.Fprintf(&b, "Candidate %d: %s\n", i+1, c)
	}
	b.WriteString(`\nScore each candidate from 0 to 10: 10 means every statement is supported by the passages it cites and the question is fully answered. Reply with JSON only: {"scores": [s1, s2, ...]}`)
	req := ragd.ChatRequest{Messages: []ragd.ChatMessage{
		{Role: ragd.RoleSystem, Content: "You grade answers for faithfulness to sources and completeness. Reply with JSON only."},
		{Role: ragd.RoleUser, Content: b.String()}}}
	resp, err := s.LLM.Complete(ctx, req)
	if err != nil {
		return nil, err
	}
	text := resp.Message.Content
	if i, j := strings.Index(text, "{"), strings.LastIndex(text, "}"); i >= 0 && j > i {
		text = text[i : j+1]
	}
	var out struct {
		Scores []float64 `json:"scores"`
	}
	if err := json.Unmarshal([]byte(text), &out); err != nil || len(out.Scores) != len(candidates) {
		return nil, fmt.Errorf("the model's scores were not %d numbers: %.200q", len(candidates), resp.Message.Content)
	}
	return out.Scores, nil
}

// rankedExtract builds one extractive answer per subset and keeps the one
// covering the most query terms (ties: the earlier subset).
func (s *Service) rankedExtract(query string, passages []Passage) (string, []int, Step) {
	sets := subsets(len(passages), s.Candidates)
	terms := queryTerms(query)
	var best string
	var bestCited []int
	scores := make([]float64, len(sets))
	chosen := -1
	for i, set := range sets {
		answer, cited := Extract(query, selectPassages(passages, set), s.MaxSentences)
		if answer == "" {
			continue
		}
		scores[i] = overlap(answer, terms)
		if chosen < 0 || scores[i] > scores[chosen] {
			chosen, best = i, renumber(answer, set)
			bestCited = make([]int, len(cited))
			for k, c := range cited {
				bestCited[k] = set[c]
			}
		}
	}
	step := Step{Tool: "rank", Args: map[string]any{"candidates": len(sets), "by": "query overlap", "scores": scores, "chosen": chosen}, ResultCount: len(sets)}
	return best, bestCited, step
}

// overlap is the share of query terms an answer contains.
func overlap(answer string, terms []string) float64 {
	if len(terms) == 0 {
		return 0
	}
	have := map[string]bool{}
	for _, w := range words(answer) {
		have[w] = true
	}
	n := 0
	for _, t := range terms {
		if have[t] {
			n++
		}
	}
	return float64(n) / float64(len(terms))
}

func argmax(xs []float64) int {
	best := 0
	for i, x := range xs {
		if x > xs[best] {
			best = i
		}
	}
	return best
}
