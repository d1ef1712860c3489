package search

import (
	"math"
	"sort"

	"ragd/internal/catalog/vocab"
)

// wordVectors is an embedder with a vector per word (the offline GloVe
// embedder); neighbour expansion needs one.
type wordVectors interface {
	Vector(word string) []float32
}

// wordIndex holds the unit vectors of a namespace's words, for finding the
// words nearest a query word among those the namespace contains.
type wordIndex struct {
	words   []string
	vectors [][]float32
}

// newWordIndex looks up every content word of the namespace; words the
// embedder does not know are left out.
func newWordIndex(stats *vocab.Stats, wv wordVectors) *wordIndex {
	idx := &wordIndex{}
	for _, w := range stats.Words() {
		if vocab.IsStopword(w) || len(w) < 3 {
			continue
		}
		if v := unit(wv.Vector(w)); v != nil {
			idx.words = append(idx.words, w)
			idx.vectors = append(idx.vectors, v)
		}
	}
	return idx
}

// nearest returns up to k of the index's words at least minSim similar to
// v (a unit vector), most similar first, skipping skip.
func (idx *wordIndex) nearest(v []float32, k int, minSim float64, skip string) []term {
	var out []term
	for i, u := range idx.vectors {
		if idx.words[i] == skip {
			continue
		}
		if sim := dot(v, u); sim >= minSim {
			out = append(out, term{idx.words[i], sim})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].weight > out[j].weight })
	return out[:min(len(out), k)]
}

// expandNeighbours adds, for each content word of the query, the
// namespace's words nearest to it in the embedder's word space, weighted
// by similarity: a bridge from the user's words to the documents' when
// they are synonyms or close relatives ("spreadsheet" → csv). Only
// embedders with word vectors support it.
func (s *Service) expandNeighbours(e *expansion, query string, v *vocabulary, r Retrieval) {
	wv, ok := s.Embedder.(wordVectors)
	if !ok {
		return
	}
	v.vectorsOnce.Do(func() { v.vectors = newWordIndex(v.stats, wv) })
	for _, w := range queryWords(query) {
		qv := unit(wv.Vector(w))
		if qv == nil {
			continue
		}
		for _, t := range v.vectors.nearest(qv, r.NeighbourTerms, r.NeighbourMinSimilarity, w) {
			e.add(t.word, neighbourWeight*t.weight)
		}
	}
}

// unit returns v scaled to length 1, or nil for a missing or zero vector.
func unit(v []float32) []float32 {
	var n float64
	for _, x := range v {
		n += float64(x) * float64(x)
	}
	if n == 0 {
		return nil
	}
	inv := float32(1 / math.Sqrt(n))
	out := make([]float32, len(v))
	for i, x := range v {
		out[i] = x * inv
	}
	return out
}

func dot(a, b []float32) float64 {
	var s float32
	for i := range a {
		s += a[i] * b[i]
	}
	return float64(s)
}
