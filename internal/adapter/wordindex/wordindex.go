// Package wordindex numbers a fixed list of words without pointers the
// garbage collector has to follow. ragd's static models — the word
// vectors, WordNet — hold hundreds of thousands of words; as a
// map[string]int32 and a []string they were marked at every collection,
// which under ragd's GC percent (cmd/ragd/gc.go) runs often.
package wordindex

import "hash/maphash"

// Index is a read-only list of words and the number of each; safe for
// concurrent use.
type Index struct {
	text  string   // the words back to back
	offs  []uint32 // word i is text[offs[i]:offs[i+1]]
	slots []uint32 // open addressing by hash: a word's number + 1; 0 is empty
	seed  maphash.Seed
}

// New indexes the words of text, word i being text[offs[i]:offs[i+1]]
// (offs holds one more offset than there are words). A word listed twice
// keeps its first number.
func New(text string, offs []uint32) *Index {
	x := &Index{text: text, offs: offs, seed: maphash.MakeSeed()}
	n := x.Len()
	size := 16
	for size < 2*n {
		size *= 2
	}
	x.slots = make([]uint32, size)
	for i := range n {
		w := x.Word(int32(i))
		s := x.slot(w)
		for ; x.slots[s] != 0; s = (s + 1) & (len(x.slots) - 1) {
			if x.Word(int32(x.slots[s]-1)) == w {
				break
			}
		}
		if x.slots[s] == 0 {
			x.slots[s] = uint32(i) + 1
		}
	}
	return x
}

// Len is the number of words.
func (x *Index) Len() int { return max(len(x.offs)-1, 0) }

// Word returns word i.
func (x *Index) Word(i int32) string { return x.text[x.offs[i]:x.offs[i+1]] }

// Lookup returns the number of w, and whether the index holds it.
func (x *Index) Lookup(w string) (int32, bool) {
	for s := x.slot(w); x.slots[s] != 0; s = (s + 1) & (len(x.slots) - 1) {
		if i := int32(x.slots[s] - 1); x.Word(i) == w {
			return i, true
		}
	}
	return 0, false
}

func (x *Index) slot(w string) int {
	return int(maphash.String(x.seed, w) & uint64(len(x.slots)-1))
}
