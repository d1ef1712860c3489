package search

import (
	"math"
	"sort"

	"ragd"
)

// fuseRRF merges ranked lists from several namespaces by reciprocal rank
// fusion: a hit scores sum(1/(k+rank)) over the lists it appears in. Scores
// from different namespaces are not comparable (each is normalised within
// its own result set); ranks are.
func fuseRRF(lists [][]ragd.Hit, k int) []ragd.Hit {
	type acc struct {
		hit   ragd.Hit
		score float64
		first int // position of first appearance, for a stable tie-break
	}
	byID := map[string]*acc{}
	var order []string
	pos := 0
	for _, list := range lists {
		for rank, h := range list {
			key := h.Namespace + "/" + h.ID
			a, ok := byID[key]
			if !ok {
				a = &acc{hit: h, first: pos}
				byID[key] = a
				order = append(order, key)
			}
			a.score += 1 / float64(k+rank+1)
			pos++
		}
	}
	out := make([]ragd.Hit, 0, len(order))
	for _, key := range order {
		a := byID[key]
		a.hit.Score = a.score
		out = append(out, a.hit)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Score > out[j].Score })
	return out
}

// mmr picks k hits balancing relevance (their order and score) against
// similarity to hits already picked: maximal marginal relevance, with lambda
// 1 meaning relevance only. Hits without vectors are taken in order.
func mmr(hits []ragd.Hit, k int, lambda float64) []ragd.Hit {
	if len(hits) <= k {
		return hits
	}
	rel := relevanceScale(hits)
	picked := make([]ragd.Hit, 0, k)
	used := make([]bool, len(hits))
	for len(picked) < k {
		best, bestScore := -1, math.Inf(-1)
		for i, h := range hits {
			if used[i] {
				continue
			}
			maxSim := 0.0
			for _, p := range picked {
				maxSim = math.Max(maxSim, ragd.Cosine(h.Vector, p.Vector))
			}
			score := lambda*rel[i] - (1-lambda)*maxSim
			if score > bestScore {
				best, bestScore = i, score
			}
		}
		used[best] = true
		picked = append(picked, hits[best])
	}
	return picked
}

// relevanceScale maps scores to [0,1] within the list, so lambda weighs
// like against like whatever the search mode's score range.
func relevanceScale(hits []ragd.Hit) []float64 {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, h := range hits {
		lo, hi = math.Min(lo, h.Score), math.Max(hi, h.Score)
	}
	out := make([]float64, len(hits))
	for i, h := range hits {
		if hi > lo {
			out[i] = (h.Score - lo) / (hi - lo)
		} else {
			out[i] = 1
		}
	}
	return out
}
