// Package wordvec is a stand-in embedder for tests that run without model
// files: a text's vector is the normalized sum of one fixed pseudo-random
// direction per word, so texts sharing words are close and the same text
// always maps to the same point. It knows no synonyms; a test of what a
// real model understands needs the real one.
package wordvec

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"math"
	"strings"
	"unicode"
)

// Embedder is the stand-in; it is safe for concurrent use.
type Embedder struct{ dims int }

// New returns a stand-in of dims dimensions.
func New(dims int) *Embedder { return &Embedder{dims: dims} }

// Name says what made the vectors, as a store records it.
func (e *Embedder) Name() string { return fmt.Sprintf("wordvec-%dd", e.dims) }

// Dimension is the length of every vector.
func (e *Embedder) Dimension() int { return e.dims }

// Embed returns one vector per text. A text without words gets the
// direction of its whole text, so no vector is zero.
func (e *Embedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	out := make([][]float32, len(texts))
	for i, text := range texts {
		v := make([]float32, e.dims)
		words := strings.FieldsFunc(strings.ToLower(text), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
		if len(words) == 0 {
			words = []string{text}
		}
		for _, w := range words {
			add(v, w)
		}
		normalize(v)
		out[i] = v
	}
	return out, nil
}

// add adds word's direction to v: components from a generator seeded by
// the word's hash.
func add(v []float32, word string) {
	sum := sha256.Sum256([]byte(word))
	state := binary.LittleEndian.Uint64(sum[:8])
	for i := range v {
		state += 0x9e3779b97f4a7c15
		z := state
		z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
		z = (z ^ (z >> 27)) * 0x94d049bb133111eb
		v[i] += float32(int64(z^(z>>31))) / (1 << 63)
	}
}

func normalize(v []float32) {
	var s float64
	for _, x := range v {
		s += float64(x) * float64(x)
	}
	if s == 0 {
		v[0] = 1
		return
	}
	inv := float32(1 / math.Sqrt(s))
	for i := range v {
		v[i] *= inv
	}
}
