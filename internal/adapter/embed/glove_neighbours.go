package embed

import (
	"math"
	"strings"
)

// neighbourVocab bounds Neighbours to the most frequent words: rarer ones are
// mostly names and typos, and a full scan would cost 7× more.
const neighbourVocab = 50000

// Neighbours returns up to k words nearest to word by cosine similarity, most
// similar first, searched among the 50k most frequent words. It returns nil
// when the table lacks word.
func (g *GloVe) Neighbours(word string, k int) []string {
	r, ok := g.words.Lookup(strings.ToLower(strings.TrimSpace(word)))
	if !ok || k <= 0 {
		return nil
	}
	norms := g.neighbourNorms()
	_, q := g.row(r)
	qn := rowNorm(q)
	if qn == 0 {
		return nil
	}
	// Cosine of two quantized rows does not depend on their scales, so the
	// search stays in int8 arithmetic.
	type hit struct {
		rank  int32
		score float32
	}
	best := make([]hit, 0, k+1)
	for c := range int32(len(norms)) {
		if c == r || norms[c] == 0 {
			continue
		}
		_, cq := g.row(c)
		var dot int32
		for i, b := range q {
			dot += int32(int8(b)) * int32(int8(cq[i]))
		}
		s := float32(dot) / (qn * norms[c])
		if len(best) == k && s <= best[k-1].score {
			continue
		}
		// Insert in order; k is small, so a sorted slice beats a heap.
		i := len(best)
		best = append(best, hit{})
		for i > 0 && best[i-1].score < s {
			best[i] = best[i-1]
			i--
		}
		best[i] = hit{c, s}
		if len(best) > k {
			best = best[:k]
		}
	}
	out := make([]string, len(best))
	for i, h := range best {
		out[i] = g.words.Word(h.rank)
	}
	return out
}

// neighbourNorms computes, once, the int8 norms of the neighbour vocabulary.
func (g *GloVe) neighbourNorms() []float32 {
	g.normsOnce.Do(func() {
		n := min(g.words.Len(), neighbourVocab)
		g.norms = make([]float32, n)
		for r := range int32(n) {
			_, q := g.row(r)
			g.norms[r] = rowNorm(q)
		}
	})
	return g.norms
}

// rowNorm is the Euclidean norm of a quantized row's int8 values.
func rowNorm(q []byte) float32 {
	var s int32
	for _, b := range q {
		s += int32(int8(b)) * int32(int8(b))
	}
	return float32(math.Sqrt(float64(s)))
}
