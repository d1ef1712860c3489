package archive

import "slices"

// indexSet is the chunk indexes met of one document. A bit set alone
// costs index/8 bytes for whatever index an archive names, so a hostile
// one of many documents, each of one chunk at a huge index, would make
// Validate hold megabytes per record. Indexes beyond the bits are kept in
// a map instead, and the bits grow over them only once they cost no more
// than wordsPerIndex words for each index held: memory follows the chunks
// read, never the numbers they carry.
type indexSet struct {
	bits []uint64
	over map[int]struct{}
	n    int // indexes held
	max  int
}

// wordsPerIndex bounds the bits' size per index held: 16 bytes, about
// what a map entry costs.
const wordsPerIndex = 2

// add adds index i (non-negative), false if the set holds it already.
func (s *indexSet) add(i int) bool {
	if w, bit := i/64, uint64(1)<<(i%64); w < len(s.bits) {
		if s.bits[w]&bit != 0 {
			return false
		}
		s.bits[w] |= bit
	} else {
		if _, dup := s.over[i]; dup {
			return false
		}
		if s.over == nil {
			s.over = map[int]struct{}{}
		}
		s.over[i] = struct{}{}
	}
	s.n++
	s.max = max(s.max, i)
	if words := s.max/64 + 1; len(s.over) > 0 && words <= wordsPerIndex*s.n {
		s.bits = slices.Grow(s.bits, words-len(s.bits))[:words]
		for j := range s.over {
			s.bits[j/64] |= 1 << (j % 64)
		}
		s.over = nil
	}
	return true
}
