package wordindex

import (
	"fmt"
	"strings"
	"testing"
)

func build(words []string) *Index {
	var b strings.Builder
	offs := []uint32{0}
	for _, w := range words {
		b.WriteString(w)
		offs = append(offs, uint32(b.Len()))
	}
	return New(b.String(), offs)
}

// Every word is found under its number, the first of a repeated word's
// numbers wins, words not listed (prefixes, joins, the empty word) are not
// found.
func TestLookup(t *testing.T) {
	words := []string{"the", "harbour", "ledger", "", "théâtre", "harbour", "a"}
	for i := range 5000 {
		words = append(words, fmt.Sprintf("w%d", i))
	}
	x := build(words)
	if x.Len() != len(words) {
		t.Fatalf("Len %d, want %d", x.Len(), len(words))
	}
	first := map[string]int32{}
	for i, w := range words {
		if _, ok := first[w]; !ok {
			first[w] = int32(i)
		}
		if x.Word(int32(i)) != w {
			t.Fatalf("Word(%d) = %q, want %q", i, x.Word(int32(i)), w)
		}
	}
	for w, i := range first {
		if got, ok := x.Lookup(w); !ok || got != i {
			t.Errorf("Lookup(%q) = %d, %v; want %d", w, got, ok, i)
		}
	}
	for _, w := range []string{"harbou", "harbourledger", "w5000", "The", "théâtr"} {
		if i, ok := x.Lookup(w); ok {
			t.Errorf("Lookup(%q) found %d", w, i)
		}
	}
	if i, ok := New("", nil).Lookup("x"); ok || New("", nil).Len() != 0 {
		t.Errorf("an empty index found %d", i)
	}
}
