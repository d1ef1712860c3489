package archive

import (
	"math/rand/v2"
	"testing"
)

// indexSet answers as a plain set would, across its map and its bits:
// sequential, shuffled, sparse and repeated indexes.
func TestIndexSet(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for round := range 200 {
		var s indexSet
		want := map[int]bool{}
		span := []int{10, 1000, 100_000, maxChunkIndex}[round%4]
		for range r.IntN(3000) {
			i := r.IntN(span)
			if round%5 == 0 {
				i = len(want) // sequential
			}
			if got := s.add(i); got != !want[i] {
				t.Fatalf("round %d: add(%d) = %v, held already: %v", round, i, got, want[i])
			}
			want[i] = true
		}
		for i := range want {
			if s.add(i) {
				t.Fatalf("round %d: %d was held but added again", round, i)
			}
		}
		if words := len(s.bits); words > wordsPerIndex*len(want)+1 {
			t.Fatalf("round %d: %d words of bits for %d indexes", round, words, len(want))
		}
	}
}
