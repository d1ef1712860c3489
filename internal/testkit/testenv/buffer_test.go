package testenv

import (
	"strings"
	"testing"
)

func TestBufferKeepsUpToMax(t *testing.T) {
	b := &Buffer{Max: 10}
	for _, w := range []string{"abcdef", "ghijkl", "mno"} {
		if n, err := b.Write([]byte(w)); n != len(w) || err != nil {
			t.Fatalf("Write(%q) = %d, %v; want %d, nil (the rest dropped, not refused)", w, n, err, len(w))
		}
	}
	if got := b.String(); got != "abcdefghij" {
		t.Fatalf("kept %q, want the first 10 bytes", got)
	}
	unbounded := &Buffer{}
	_, _ = unbounded.Write([]byte(strings.Repeat("x", 100)))
	if len(unbounded.String()) != 100 {
		t.Fatalf("a buffer without Max kept %d bytes of 100", len(unbounded.String()))
	}
}
