package memstore

import (
	"math"
	"strings"
	"unicode"
)

// field is one searched property of an object and its weight.
type field struct {
	text   string
	weight float64
}

// BM25's constants, Weaviate's defaults.
const (
	bm25K1 = 1.2
	bm25B  = 0.75
)

// stopwords are dropped from queries, as Weaviate's "en" preset does.
var stopwords = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`a an and are as at be but by for if in into is it no not of on or such
		that the their then there these they this to was will with`) {
		stopwords[w] = true
	}
}

// tokens splits text as Weaviate's "word" tokenization does: lower-cased
// runs of letters and digits.
func tokens(text string) []string {
	return strings.FieldsFunc(strings.ToLower(text), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
}

// bm25 scores each document (a list of weighted fields) for the query's
// terms: BM25F, the fields' term counts and lengths summed by weight.
func bm25(docs [][]field, query []string) []float64 {
	scores := make([]float64, len(docs))
	terms := map[string]bool{}
	for _, t := range query {
		if !stopwords[t] {
			terms[t] = true
		}
	}
	if len(terms) == 0 || len(docs) == 0 {
		return scores
	}
	tf := make([]map[string]float64, len(docs))
	lengths := make([]float64, len(docs))
	df := map[string]int{}
	var total float64
	for i, fs := range docs {
		tf[i] = map[string]float64{}
		for _, f := range fs {
			for _, t := range tokens(f.text) {
				tf[i][t] += f.weight
				lengths[i] += f.weight
			}
		}
		total += lengths[i]
		for t := range terms {
			if tf[i][t] > 0 {
				df[t]++
			}
		}
	}
	avg := math.Max(total/float64(len(docs)), 1)
	n := float64(len(docs))
	for i := range docs {
		for t := range terms {
			f := tf[i][t]
			if f == 0 {
				continue
			}
			idf := math.Log(1 + (n-float64(df[t])+0.5)/(float64(df[t])+0.5))
			scores[i] += idf * f * (bm25K1 + 1) / (f + bm25K1*(1-bm25B+bm25B*lengths[i]/avg))
		}
	}
	return scores
}
