package embed

import (
	"context"
	"fmt"
	"strings"
)

// Name identifies the model; it names the dimension so tables of other widths
// never pass for the 100-d one.
func (g *GloVe) Name() string { return fmt.Sprintf("glove-sif-%dd", g.dims) }

// Dimension is the length of every vector Embed returns.
func (g *GloVe) Dimension() int { return g.dims }

// Embed returns one unit vector per text, checking ctx between texts.
func (g *GloVe) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		out[i] = g.embedText(t)
	}
	return out, nil
}

// embedText is the SIF mean of the known words of text. A text with no known
// word (numbers only, another script, empty) gets its hash vector.
func (g *GloVe) embedText(text string) []float32 {
	acc := make([]float32, g.dims)
	known := 0
	add := func(r int32) {
		w := float32(g.weight(r))
		scale, q := g.row(r)
		ws := w * scale
		for i, b := range q {
			acc[i] += ws * float32(int8(b))
		}
		known++
	}
	for tok := range tokens(text) {
		g.lookup(tok, add)
	}
	// The mean's 1/n factor is skipped: normalizing removes it anyway.
	if known == 0 || !normalize(acc) {
		return hashVector(text, g.dims)
	}
	return acc
}

// weight is the SIF weight a/(a+p) of the word of rank r, with p estimated by
// Zipf's law p(r) = 1/((r+1)·H_N) because the table stores ranks, not counts.
func (g *GloVe) weight(r int32) float64 {
	p := 1 / (float64(r+1) * g.harmonic)
	return g.A / (g.A + p)
}

// lookup calls fn with the rank of each table word tok stands for: the token
// itself if known, else its hyphen-separated parts, else the words of its
// contraction (the table has neither "don't" nor "n't").
func (g *GloVe) lookup(tok string, fn func(int32)) {
	if r, ok := g.words.Lookup(tok); ok {
		fn(r)
		return
	}
	if strings.ContainsRune(tok, '-') {
		for part := range strings.SplitSeq(tok, "-") {
			if part != "" {
				g.lookup(part, fn)
			}
		}
		return
	}
	if strings.ContainsRune(tok, '\'') {
		for _, w := range expandContraction(tok) {
			if r, ok := g.words.Lookup(w); ok {
				fn(r)
			}
		}
	}
}
