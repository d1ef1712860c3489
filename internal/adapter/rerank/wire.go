package rerank

import (
	"encoding/json"
	"math"
)

// teiRequest is text-embeddings-inference's POST /rerank body. Truncate
// lets the server cut passages longer than the model's window instead of
// refusing the call; scores are the model's sigmoid (raw_scores false).
type teiRequest struct {
	Query     string   `json:"query"`
	Texts     []string `json:"texts"`
	RawScores bool     `json:"raw_scores"`
	Truncate  bool     `json:"truncate"`
}

// cohereRequest is the Cohere/Jina-style POST /rerank body; top_n asks for
// every document so that each gets a score.
type cohereRequest struct {
	Model     string   `json:"model,omitempty"`
	Query     string   `json:"query"`
	Documents []string `json:"documents"`
	TopN      int      `json:"top_n"`
}

// rank is one scored input; pointers tell a missing member from a zero.
type rank struct {
	Index *int
	Score *float64
}

// teiRank is one element of TEI's answer, a JSON array.
type teiRank struct {
	Index *int     `json:"index"`
	Score *float64 `json:"score"`
}

// cohereResponse is Cohere's, Jina's, vLLM's and llama.cpp's answer; the
// members each adds (id, model, usage, meta, document) are ignored.
type cohereResponse struct {
	Results *[]struct {
		Index          *int     `json:"index"`
		RelevanceScore *float64 `json:"relevance_score"`
	} `json:"results"`
}

func decodeTEI(raw []byte) ([]rank, error) {
	var out []teiRank
	if err := json.Unmarshal(raw, &out); err != nil {
		return nil, malformed("not a TEI rerank answer ([{index, score}]): %v", err)
	}
	ranks := make([]rank, len(out))
	for i, r := range out {
		ranks[i] = rank{Index: r.Index, Score: finite(r.Score)}
	}
	return ranks, nil
}

func decodeCohere(raw []byte) ([]rank, error) {
	var out cohereResponse
	if err := json.Unmarshal(raw, &out); err != nil || out.Results == nil {
		if err == nil {
			return nil, malformed("no results member in the answer")
		}
		return nil, malformed("not a rerank answer ({results: [{index, relevance_score}]}): %v", err)
	}
	ranks := make([]rank, len(*out.Results))
	for i, r := range *out.Results {
		ranks[i] = rank{Index: r.Index, Score: finite(r.RelevanceScore)}
	}
	return ranks, nil
}

// finite drops a score that is not a finite number (JSON cannot carry NaN,
// but a huge exponent decodes to ±Inf).
func finite(s *float64) *float64 {
	if s == nil || math.IsInf(*s, 0) || math.IsNaN(*s) {
		return nil
	}
	return s
}
